#!/usr/bin/env node
// Cold start of the Worker on the host's Pyodide (the one wrangler.toml selects): what importing
// the bundle's entry module (tickwork and the example app) adds over a bare entry that only
// imports WorkerEntrypoint, both from the same bundle. Each round is a pair, one fresh
// interpreter for each entry, both started before either imports its entry, the imports back to
// back in an order alternating from round to round; the figure is the median of the pairs'
// differences.
//
//   node scripts/bench/coldstart.mjs [--bundle build/worker] [--rounds 15] [--config wrangler.toml]
//
// Each import is timed in the CPU time of the thread that runs it (Linux's schedstat; the wall
// clock where that cannot be read): on a machine shared with other work the wall clock counts the
// time others held the CPU, hundreds of ms that swamp the tens measured. The wall clock's median is
// printed too, as is the CPU time of all the process's threads (V8 compiles WebAssembly and collects
// garbage on threads of its own: work, though not on the import's way), and the entry imported (as
// another module) into the bare entry's interpreter once that has started, which leaves out the
// noise of starting two interpreters. None of these is a goal.
//
// The first tick's imports: what an isolate's first `scheduled()` imports beyond the cold start
// (the tick, the stores, the outbox, the timings, croniter, zoneinfo...), paid once an isolate at
// its first cron event. The modules are found by running one real first `scheduled()` of the
// bundle's entry on the host (Miniflare's D1, wrangler.toml's bindings, a fresh database, at
// FIRST_TICK_AT: nothing due, so no action's own imports), in the order it imported them; then
// in each round the entry's interpreter, once its import is timed, imports that list, timed in the
// same CPU time. So a module added to the tick's path (a package split into more files) is
// counted without this script knowing its name.
//
// Their goal is a ratio: in each round, the first tick's imports over the bare entry's import in
// the same round, whose median may be at most 10 % over FIRST_TICK_BASELINE_RATIO. Both are
// Python imports on the same Pyodide timed in the same CPU time within seconds of each other, so
// a loaded machine slows both alike and the ratio holds where the absolute figure does not (on
// the shared machine, one run's median of the absolute figure has been 40 % over another's with
// the code unchanged). The absolute figures are printed beside it, not a goal.
//
// Goals: the entry adds at most 60 ms, imports none of the modules only a tick, a queue batch, an
// outbox, items or health need, and never pydantic; the first tick's imports over the bare
// entry's at most FIRST_TICK_BASELINE_RATIO + 10 %. Exits 1 when any is missed.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';

import { ScheduledController } from '../host/bindings.mjs';
import { compatFlags, Platform, readConfig } from '../host/platform.mjs';
import { PythonWorker, SESSION, threadCpuMs } from '../host/python.mjs';
import { pyodideFor } from '../host/runtimes.mjs';

const GOAL_MS = 60;
// The first tick's imports over the bare entry's import before the restructuring (issue 24)
// began: measured 2026-12-01 on commit 0c435da (main where the restructuring's branches start; 64
// modules, 24 of them tickwork's) on the 2-core machine the team shares, with this script on a
// bundle of that commit's src/tickwork; the median of 5 runs' medians of the rounds' ratios (1.338,
// 1.340, 1.355, 1.356 and 1.369). The same runs' absolute medians, printed beside but no goal:
// 338.0 to 364.7 ms of CPU time, median 347.5 ms (another day's runs on the same machine and
// commit gave 373 to 516 ms, the ratio 1.28 to 1.54).
const FIRST_TICK_BASELINE_RATIO = 1.355;
const FIRST_TICK_BASELINE_MS = 347.5;
const FIRST_TICK_GOAL_RATIO = FIRST_TICK_BASELINE_RATIO * 1.1;
// A Monday 09:00 UTC long past: the tick seeds a fresh database and runs nothing, and being
// outside the wall clock's minute, the invocation ticks at no 10-second mark after it.
const FIRST_TICK_AT = Date.UTC(2026, 2, 2, 9, 0);
const BARE_ENTRY = 'from workers import WorkerEntrypoint\n\n\nclass Default(WorkerEntrypoint):\n    pass\n';
// Imported by the handler that first needs them (docs/explanation/tick.md, "Cold start"), never by the entry.
const AT_FIRST_USE = [
  'croniter', 'dateutil', 'zoneinfo', 'pydantic', 'tickwork.tick', 'tickwork.invocation',
  'tickwork.schedule_store', 'tickwork.outbox', 'tickwork.outbox_store', 'tickwork.consumers',
  'tickwork.per_item', 'tickwork.housekeeping', 'tickwork.health', 'tickwork.declared',
  'tickwork.calendars', 'tickwork.model', 'tickwork.timing', 'tickwork.adapters._d1',
  'tickwork.adapters._webcrypto', 'tickwork.testing',
];

const { values } = parseArgs({
  options: {
    bundle: { type: 'string', default: 'build/worker' },
    rounds: { type: 'string', default: '15' },
    main: { type: 'string', default: 'entry.py' },
    config: { type: 'string', default: 'wrangler.toml' },
  },
});
const flags = compatFlags((await readConfig(values.config)).config);
const rounds = Number(values.rounds);
const byCpu = !Number.isNaN(threadCpuMs());
const clock = byCpu ? 'CPU time' : 'wall clock';

// A pair's imports start with the memory of what came before collected, so that neither pays for it.
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc');

function median(numbers) {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function prepare(replace) {
  return PythonWorker.prepare({
    bundleDir: values.bundle,
    mainModule: values.main,
    compatFlags: flags,
    output: () => {},
    replace,
  });
}

function processCpuMs(since) {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
}

function imported(worker) {
  const since = process.cpuUsage();
  worker.importMain();
  const allMs = processCpuMs(since);
  const modules = worker.loadedModules().map(([name]) => name);
  return { ms: byCpu ? worker.importCpuMs : worker.importMs, wallMs: worker.importMs, allMs, modules, worker };
}

// The modules an isolate's first `scheduled()` imports, in the order it imported them.
async function firstTickModules() {
  const dir = mkdtempSync(path.join(tmpdir(), 'tickwork-bench-first-tick-'));
  let platform;
  try {
    platform = await Platform.start({
      configPath: values.config, persistTo: path.join(dir, 'state'), onQueue: async () => ({}),
    });
    await platform.migrate();
    const worker = await PythonWorker.load({
      bundleDir: values.bundle, mainModule: values.main, env: platform.env,
      compatFlags: compatFlags(platform.config), output: () => {},
    });
    const names = () => worker.pyodide.runPython('import sys\n[name for name in sys.modules]').toJs();
    const before = new Set(names());
    await worker.invoke('scheduled', [new ScheduledController('* * * * *', FIRST_TICK_AT)]);
    return names().filter((name) => !before.has(name));
  } finally {
    await platform?.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

// `modules` imported, in order, into an interpreter that has imported the entry.
function importedFirstTick(worker, modules) {
  worker.pyodide.globals.set('tickwork_bench_first_tick', worker.pyodide.toPy(modules));
  const started = threadCpuMs();
  const wallMs = worker.pyodide.runPython(
    'import importlib, time\nstarted = time.perf_counter()\n' +
      'for name in tickwork_bench_first_tick:\n    importlib.import_module(name)\n' +
      '(time.perf_counter() - started) * 1000',
  );
  return { ms: byCpu ? threadCpuMs() - started : wallMs, wallMs };
}

// The entry's import in an interpreter that has imported the bare entry already.
function importedAfter(worker) {
  worker.pyodide.FS.writeFile(`${SESSION}/tickwork_bench_entry.py`, readFileSync(path.join(values.bundle, values.main)));
  const started = threadCpuMs();
  const wallMs = worker.pyodide.runPython(
    'import time\nstarted = time.perf_counter()\nimport tickwork_bench_entry\n(time.perf_counter() - started) * 1000',
  );
  return byCpu ? threadCpuMs() - started : wallMs;
}

const firstTick = await firstTickModules();
const pairs = [];
let loaded = [];
for (let round = 1; round <= rounds; round++) {
  const bareFirst = round % 2 === 1;
  const ready = { bare: await prepare({ [values.main]: BARE_ENTRY }), entry: await prepare({}) };
  collect();
  const [first, second] = (bareFirst ? [ready.bare, ready.entry] : [ready.entry, ready.bare]).map(imported);
  const [bare, entry] = bareFirst ? [first, second] : [second, first];
  const pair = {
    bare: bare.ms, entry: entry.ms, added: entry.ms - bare.ms, wallAdded: entry.wallMs - bare.wallMs,
    allAdded: entry.allMs - bare.allMs,
    after: importedAfter(bare.worker),
  };
  collect();
  pair.firstTick = importedFirstTick(entry.worker, firstTick);
  pairs.push(pair);
  loaded = AT_FIRST_USE.filter((name) => entry.modules.some((m) => m === name || m.startsWith(`${name}.`)));
  console.log(
    `round ${round}/${rounds} (${bareFirst ? 'bare first' : 'entry first'}): bare ${bare.ms.toFixed(1)} ms, ` +
      `entry ${entry.ms.toFixed(1)} ms, added ${pair.added.toFixed(1)} ms (wall clock ${pair.wallAdded.toFixed(1)} ms; ` +
      `all threads ${pair.allAdded.toFixed(1)} ms; ` +
      `${pair.after.toFixed(1)} ms imported after the bare one) (${entry.modules.length - bare.modules.length} more modules); ` +
      `first tick's imports ${pair.firstTick.ms.toFixed(1)} ms (wall clock ${pair.firstTick.wallMs.toFixed(1)} ms), ` +
      `${(pair.firstTick.ms / bare.ms).toFixed(3)} of the bare entry's`,
  );
}

const added = median(pairs.map((pair) => pair.added));
console.log(`cold start (import of ${values.main}, ${rounds} pairs of fresh Pyodide ${pyodideFor(flags).pyodide} interpreters, ${clock}):`);
console.log(`  bare entry (only WorkerEntrypoint), median: ${median(pairs.map((p) => p.bare)).toFixed(1)} ms`);
console.log(`  entry with tickwork and the app, median:    ${median(pairs.map((p) => p.entry)).toFixed(1)} ms`);
console.log(`  added by the entry, median of the pairs:    ${added.toFixed(1)} ms (goal <= ${GOAL_MS}): ${added <= GOAL_MS ? 'met' : 'MISSED'}`);
console.log(`  the same on the wall clock, median:         ${median(pairs.map((p) => p.wallAdded)).toFixed(1)} ms (not a goal)`);
console.log(`  the same in all threads' CPU time, median:   ${median(pairs.map((p) => p.allAdded)).toFixed(1)} ms (not a goal)`);
console.log(`  the entry imported after the bare one, median: ${median(pairs.map((p) => p.after)).toFixed(1)} ms (not a goal)`);
console.log(`  imported at cold start though only needed later: ${loaded.length ? `YES (${loaded.join(', ')})` : 'none'}`);
const firstTickMs = median(pairs.map((p) => p.firstTick.ms));
const firstTickRatio = median(pairs.map((p) => p.firstTick.ms / p.bare));
const firstTickMet = firstTickRatio <= FIRST_TICK_GOAL_RATIO;
console.log(`first tick's imports (the ${firstTick.length} modules a first scheduled() adds, ${tickworkCount(firstTick)} of them tickwork's, imported after the entry, ${clock}):`);
console.log(`  over the bare entry's import in the same round, median: ${firstTickRatio.toFixed(3)} (goal <= ` +
  `${FIRST_TICK_GOAL_RATIO.toFixed(3)}, the baseline ${FIRST_TICK_BASELINE_RATIO} + 10 %): ${firstTickMet ? 'met' : 'MISSED'}`);
console.log(`  median: ${firstTickMs.toFixed(1)} ms (the baseline's ${FIRST_TICK_BASELINE_MS} ms; not a goal: ` +
  `it grows with the machine's load)`);
console.log(`  the same on the wall clock, median: ${median(pairs.map((p) => p.firstTick.wallMs)).toFixed(1)} ms (not a goal)`);
process.exit(added <= GOAL_MS && !loaded.length && firstTickMet ? 0 : 1);

function tickworkCount(modules) {
  return modules.filter((name) => name === 'tickwork' || name.startsWith('tickwork.')).length;
}
