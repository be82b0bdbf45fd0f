#!/usr/bin/env node
// scripts/bench/declared.py on the host: a nothing-due tick at N declared schedules, the bundled
// Worker's tickwork on Pyodide, its store Miniflare's local D1 (one database per N); then the
// isolate's weight: for 1,000, 10,000 and the most the build allows, of schedules and of
// calendars (the heavier: a cron of its own each), a fresh Worker (the bundle with a manifest of
// N entries written by the build's own code), its Wasm heap after import and after its first
// ticks, against an isolate's 128 MB.
// Prints one JSON line per measurement, then exits non-zero naming the goals missed.
//
//   node scripts/bench/declared_in_host.mjs [--bundle build/worker] [--sizes 100,10000,100000]

import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { ExecutionContext } from '../host/bindings.mjs';
import { benchOptions, report, withHost, wranglerToml } from './host_bench.mjs';

const { bundle, sizes } = benchOptions('100,10000,100000');
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PYTHON = process.env.PYTHON ?? path.join(ROOT, '.venv', 'bin', 'python');
const SCRIPT = path.join(ROOT, 'scripts', 'bench', 'declared.py');
const ISOLATE_MB = 128;

// The Wasm heap of a Worker declaring `n` of `kind`, as its manifest says; memory a Wasm
// instance took is never given back, so the heap after the ticks is the most it held.
async function weighed(n, kind) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tickwork-bench-heap-'));
  try {
    cpSync(bundle, dir, { recursive: true });
    execFileSync(PYTHON, [SCRIPT, '--manifest', String(n), path.join(dir, 'tickwork_manifest.py'), kind]);
    return await withHost(
      { bundle: dir, toml: wranglerToml('tickwork-bench-heap', ['DB']), script: 'declared.py' },
      async ({ platform, worker, bench }) => {
        const heap = () => Math.round((worker.pyodide._module.HEAP8.length / 2 ** 20) * 10) / 10;
        const imported = heap();
        await bench.host_ticks(new ExecutionContext(), platform.env);
        return { bench: 'declared_heap', kind, declared: n, heap_mb_after_import: imported, heap_mb_after_ticks: heap() };
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await report('declared_schedules', async () => {
  const ticked = await withHost(
    { bundle, toml: wranglerToml('tickwork-bench-declared', sizes.map((n) => `DB_${n}`)), script: 'declared.py' },
    async ({ platform, bench }) => JSON.parse(await bench.host_main(new ExecutionContext(), platform.env, sizes)),
  );
  const most = Number(execFileSync(PYTHON, [SCRIPT, '--most']).toString());
  const heaps = [];
  for (const kind of ['schedule', 'calendar']) for (const n of [1000, 10000, most]) heaps.push(await weighed(n, kind));
  const over = heaps.filter((h) => h.heap_mb_after_ticks >= ISOLATE_MB);
  return {
    results: [...ticked.results, ...heaps],
    missed: [
      ...ticked.missed,
      ...over.map((h) => `a Worker declaring ${h.declared.toLocaleString('en')} ${h.kind}s holds a ${h.heap_mb_after_ticks} MB ` +
        `Wasm heap (goal: under an isolate's ${ISOLATE_MB} MB)`),
    ],
  };
});
