#!/usr/bin/env node
// scripts/bench/housekeeping.py on the host: the bundled Worker's tickwork on Pyodide 0.28.2, its
// store Miniflare's local D1, reached as the Worker reaches it (`self.env.<binding>` through the
// workers-runtime-sdk's wrappers; D1 calls go through the host's JS Worker, as outbox_in_host.mjs
// has them). A D1 database per N of old run records, in a temporary directory, migrated as
// `wrangler d1 migrations apply` would, ticked a minute apart until housekeeping has emptied it.
// Prints one JSON line per measurement, then exits non-zero naming the goals missed.
//
//   node scripts/bench/housekeeping_in_host.mjs [--bundle build/worker] [--sizes 1000000]

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { ExecutionContext } from '../host/bindings.mjs';
import { compatFlags, Platform } from '../host/platform.mjs';
import { PythonWorker, SESSION } from '../host/python.mjs';

const { values } = parseArgs({
  options: {
    bundle: { type: 'string', default: 'build/worker' },
    sizes: { type: 'string', default: '1000000' },
  },
});
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const sizes = values.sizes.split(',').map(Number);

// The benchmark's wrangler.toml: a D1 database DB_<N> per N, with the project's migrations.
function wranglerToml() {
  const database = (n, k) => `
[[d1_databases]]
binding = "DB_${n}"
database_name = "bench-housekeeping-${n}"
database_id = "00000000-0000-0000-0000-${String(k).padStart(12, '0')}"
migrations_dir = ${JSON.stringify(path.join(ROOT, 'migrations'))}
`;
  return `name = "tickwork-bench-housekeeping"
main = "entry.py"
compatibility_date = "2026-04-21"
compatibility_flags = ["python_workers"]
${sizes.map(database).join('')}`;
}

// One attempt, in a fresh Miniflare and Pyodide, its state in a fresh temporary directory (the
// host's Platform, as outbox_in_host.mjs starts it). Returns housekeeping.py's {results, missed}.
async function attempt() {
  const dir = mkdtempSync(path.join(tmpdir(), 'tickwork-bench-housekeeping-'));
  let platform;
  try {
    writeFileSync(path.join(dir, 'wrangler.toml'), wranglerToml());
    platform = await Platform.start({
      configPath: path.join(dir, 'wrangler.toml'),
      persistTo: path.join(dir, 'state'),
      onQueue: async () => ({}),
    });
    await platform.migrate();
    const worker = await PythonWorker.load({
      bundleDir: values.bundle,
      mainModule: 'entry.py',
      env: platform.env,
      compatFlags: compatFlags(platform.config),
      output: (stream, line) => process.stderr.write(`${line}\n`),
    });
    const source = readFileSync(new URL('./housekeeping.py', import.meta.url));
    worker.pyodide.FS.writeFile(`${SESSION}/tickwork_bench_housekeeping.py`, source);
    const bench = worker.pyodide.pyimport('tickwork_bench_housekeeping');
    return JSON.parse(await bench.host_main(new ExecutionContext(), platform.env, sizes));
  } finally {
    if (platform) await platform.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Miniflare's Node-side proxy now and then fails an assertion of its own under load (see
// outbox_in_host.mjs; the host's D1 no longer goes through it): no figure of tickwork's. Said,
// and tried once more from scratch.
const PROXY_FAULT = /SynchronousFetcher|ERR_ASSERTION/;
let outcome;
for (let tries = 1; !outcome; tries++) {
  try {
    outcome = await attempt();
  } catch (error) {
    const message = String(error?.message ?? error);
    if (tries < 2 && PROXY_FAULT.test(message)) {
      console.error(`housekeeping (host): Miniflare's D1 proxy failed (${message.trim().split('\n').at(-1)}); once more`);
      continue;
    }
    console.error(`housekeeping (host): ${message}`);
    process.exit(1);
  }
}
for (const result of outcome.results) console.log(JSON.stringify({ ...result, host: 'pyodide' }));
if (outcome.missed.length) console.error(`housekeeping (host): goals missed:\n  ${outcome.missed.join('\n  ')}`);
process.exit(outcome.missed.length ? 1 : 0);
