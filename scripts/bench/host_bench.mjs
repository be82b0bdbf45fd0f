// What the host benchmarks share: a wrangler.toml of their own with a D1 database per binding
// and the project's migrations, the host's Platform started from it in a temporary directory,
// the bench's Python loaded into the bundled Worker's Pyodide, and their end: each result as a
// JSON line, exit 1 naming the goals missed.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { compatFlags, Platform } from '../host/platform.mjs';
import { PythonWorker, SESSION } from '../host/python.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// Miniflare's own Node-side proxy now and then fails an assertion under load (`message?.id ===
// id` in SynchronousFetcher.fetch); the host's D1 no longer goes through it, its queues still do.
// That is no figure of tickwork's: said, and tried again from scratch.
export const PROXY_FAULT = /SynchronousFetcher|ERR_ASSERTION/;

// The command line most host benchmarks take: `--bundle` (build/worker) and, given `sizes` (its
// default, a comma list), `--sizes` as numbers.
export function benchOptions(sizes) {
  const options = { bundle: { type: 'string', default: 'build/worker' } };
  if (sizes !== undefined) options.sizes = { type: 'string', default: sizes };
  const { values } = parseArgs({ options });
  return { bundle: values.bundle, sizes: values.sizes?.split(',').map(Number) };
}

// A benchmark's wrangler.toml: `name`, a D1 database per binding, then `more` (queues).
export function wranglerToml(name, bindings, more = '') {
  const database = (binding, k) => `
[[d1_databases]]
binding = "${binding}"
database_name = "${name}-${binding.toLowerCase()}"
database_id = "00000000-0000-0000-0000-${String(k).padStart(12, '0')}"
migrations_dir = ${JSON.stringify(path.join(ROOT, 'migrations'))}
`;
  return `name = "${name}"
main = "entry.py"
compatibility_date = "2026-12-01"
compatibility_flags = ["python_workers"]
${bindings.map(database).join('')}${more}`;
}

// Runs `use({platform, worker, bench})` with the host's Platform started from `toml` (migrated)
// and `script` (a .py beside this file, with bench_common.py) imported in the Worker's Pyodide;
// everything goes with the temporary directory afterwards.
export async function withHost({ bundle, toml, script, onQueue, output }, use) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tickwork-bench-'));
  let platform;
  try {
    writeFileSync(path.join(dir, 'wrangler.toml'), toml);
    platform = await Platform.start({
      configPath: path.join(dir, 'wrangler.toml'),
      persistTo: path.join(dir, 'state'),
      onQueue: onQueue ?? (async () => ({})),
    });
    await platform.migrate();
    const worker = await PythonWorker.load({
      bundleDir: bundle,
      mainModule: 'entry.py',
      env: platform.env,
      compatFlags: compatFlags(platform.config),
      output: output ?? ((stream, line) => process.stderr.write(`${line}\n`)),
    });
    const module = `tickwork_bench_${path.basename(script, '.py')}`;
    for (const [file, name] of [['bench_common.py', 'bench_common'], [script, module]]) {
      worker.pyodide.FS.writeFile(`${SESSION}/${name}.py`, readFileSync(new URL(`./${file}`, import.meta.url)));
    }
    return await use({ platform, worker, bench: worker.pyodide.pyimport(module) });
  } finally {
    await platform?.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Runs `attempt()` (returning {results, missed}), again from scratch after a fault of Miniflare's
// proxy, up to `tries` times; prints each result and exits, 1 when a goal was missed.
export async function report(label, attempt, tries = 2) {
  let outcome;
  for (let tried = 1; !outcome; tried++) {
    try {
      outcome = await attempt();
    } catch (error) {
      const message = String(error?.message ?? error);
      if (tried < tries && PROXY_FAULT.test(message)) {
        console.error(`${label} (host): Miniflare's D1 proxy failed (${message.trim().split('\n').at(-1)}); once more`);
        continue;
      }
      console.error(`${label} (host): ${message}`);
      process.exit(1);
    }
  }
  for (const result of outcome.results) console.log(JSON.stringify({ ...result, host: 'pyodide' }));
  if (outcome.missed.length) console.error(`${label} (host): goals missed:\n  ${outcome.missed.join('\n  ')}`);
  process.exit(outcome.missed.length ? 1 : 0);
}
