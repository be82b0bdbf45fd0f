#!/usr/bin/env node
// scripts/bench/calendars.py on the host's Pyodide, the one wrangler.toml selects of the Workers
// runtime: the same 1,000 calendars across 50 zones, with the bundle's croniter and tzdata.
// Prints its JSON line; exits 1 naming the goals missed (the month-late tick against the hour-late
// one, in searches and time; no goal of its own per tick).
//
//   node scripts/bench/calendars_in_host.mjs [--bundle build/worker] [--config wrangler.toml]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { compatFlags, readConfig } from '../host/platform.mjs';
import { PythonWorker, SESSION, threadCpuMs } from '../host/python.mjs';

const { values } = parseArgs({
  options: {
    bundle: { type: 'string', default: 'build/worker' },
    config: { type: 'string', default: 'wrangler.toml' },
  },
});
const { config } = await readConfig(values.config);

const worker = await PythonWorker.load({
  bundleDir: values.bundle,
  mainModule: 'entry.py',
  compatFlags: compatFlags(config),
  output: (stream, line) => (stream === 'stderr' ? process.stderr : process.stdout).write(`${line}\n`),
});
const source = readFileSync(new URL('./calendars.py', import.meta.url));
worker.pyodide.FS.writeFile(`${SESSION}/tickwork_bench_calendars.py`, source);
// The ticks timed in this thread's CPU time, where Linux tells it (else Pyodide's wall clock).
if (!Number.isNaN(threadCpuMs())) worker.pyodide.pyimport('tickwork_bench_calendars').CLOCK = () => threadCpuMs() / 1000;
const answer = JSON.parse(await worker.pyodide.runPythonAsync(
  'import json, tickwork_bench_calendars as bench\n' +
    'result = {**bench.main(), "host": "pyodide"}\njson.dumps([result, bench.missed(result, None)])',
));
const [result, missed] = answer;
console.log(JSON.stringify(result));
if (missed.length) {
  console.error(`calendars_per_tick (pyodide): goals missed:\n  ${missed.join('\n  ')}`);
  process.exit(1);
}
