#!/usr/bin/env node
// Cold start of the Worker on the host's Pyodide: the time to import the bundle's entry module
// (tickwork and the example app) against a bare entry that only imports WorkerEntrypoint, both
// from the same bundle, in a fresh interpreter each round, alternating.
//
//   node scripts/bench/coldstart.mjs [--bundle build/worker] [--rounds 5] [--config wrangler.toml]
//
// Goal: the median ratio under 1.5, and pydantic never imported. Exits 1 when either is missed.

import { parseArgs } from 'node:util';

import { compatFlags, readConfig } from '../host/platform.mjs';
import { PythonWorker } from '../host/python.mjs';
import { pyodideFor } from '../host/runtimes.mjs';

const GOAL = 1.5;
const BARE_ENTRY = 'from workers import WorkerEntrypoint\n\n\nclass Default(WorkerEntrypoint):\n    pass\n';

const { values } = parseArgs({
  options: {
    bundle: { type: 'string', default: 'build/worker' },
    rounds: { type: 'string', default: '5' },
    main: { type: 'string', default: 'entry.py' },
    config: { type: 'string', default: 'wrangler.toml' },
  },
});
const flags = compatFlags((await readConfig(values.config)).config);
const rounds = Number(values.rounds);

function median(numbers) {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

async function coldImport(replace) {
  const worker = await PythonWorker.load({
    bundleDir: values.bundle,
    mainModule: values.main,
    compatFlags: flags,
    output: () => {},
    replace,
  });
  const modules = worker.loadedModules().map(([name]) => name);
  return { ms: worker.importMs, modules };
}

const times = { bare: [], entry: [] };
let pydantic = [];
for (let round = 1; round <= rounds; round++) {
  const bare = await coldImport({ [values.main]: BARE_ENTRY });
  const entry = await coldImport({});
  times.bare.push(bare.ms);
  times.entry.push(entry.ms);
  pydantic = entry.modules.filter((name) => name === 'pydantic' || name.startsWith('pydantic'));
  console.log(
    `round ${round}/${rounds}: bare ${bare.ms.toFixed(1)} ms, entry ${entry.ms.toFixed(1)} ms ` +
      `(${entry.modules.length} modules loaded)`,
  );
}

const bare = median(times.bare);
const entry = median(times.entry);
const ratio = entry / bare;
console.log(`cold start (import of ${values.main}, median of ${rounds} fresh Pyodide ${pyodideFor(flags).pyodide} interpreters):`);
console.log(`  bare entry (only WorkerEntrypoint): ${bare.toFixed(1)} ms`);
console.log(`  entry with tickwork and the app:    ${entry.toFixed(1)} ms`);
console.log(`  ratio ${ratio.toFixed(2)} (goal < ${GOAL}): ${ratio < GOAL ? 'met' : 'MISSED'}`);
console.log(`  pydantic imported at run time: ${pydantic.length ? `YES (${pydantic.join(', ')})` : 'no'}`);
process.exit(ratio < GOAL && !pydantic.length ? 0 : 1);
