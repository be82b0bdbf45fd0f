// What a Worker's wrangler.toml selects of the Workers runtime: its compat flags, and the Pyodide
// its Python runs on. Data read from workerd 1.20261117.1 (its compatibility-date.capnp and the
// Pyodide releases it embeds, src/pyodide in cloudflare/workerd); docs/how-to/run-locally.md, "Which Python runs".

// Flags on from a compatibility date, as far as the SDK, this host or the choice of Pyodide
// reads them. `python_workers_*` are on from their date only in a Python Worker, which this is.
const FLAGS_BY_DATE = [
  ['2025-08-14', 'python_no_global_handlers'],
  ['2025-09-29', 'python_workers_20250116'],
  ['2026-04-21', 'enable_python_external_sdk'],
  ['2026-05-26', 'python_process_pth_files'],
  ['2026-09-08', 'python_workers_314'],
];

// Each Pyodide a Python Worker can get, newest first: workerd runs the one of the newest flag
// that is on. `module` is the npm alias package.json pins it as; without one, the host cannot
// run it.
export const PYODIDES = [
  { flag: 'python_workers_314', pyodide: '314.0.6', python: '3.14', module: 'pyodide-314' },
  { flag: 'python_workers_20260610', pyodide: '314.0.4', python: '3.14' },
  { flag: 'python_workers_20250116', pyodide: '0.28.2', python: '3.13', module: 'pyodide-0.28' },
  { flag: 'python_workers', pyodide: '0.26.0a2', python: '3.12' },
];

// `{flag: true}` for each flag on, from wrangler.toml's compatibility_date and
// compatibility_flags (`no_<flag>` or `disable_<flag>` turns one off, as workerd names them).
export function compatFlags(config) {
  const flags = {};
  for (const [date, flag] of FLAGS_BY_DATE) {
    if (config.compatibility_date && config.compatibility_date >= date) flags[flag] = true;
  }
  for (const flag of config.compatibility_flags ?? []) {
    const off = flag.match(/^(?:no|disable)_(.+)$/)?.[1];
    if (off) {
      delete flags[off];
      delete flags[`enable_${off}`];
    } else flags[flag] = true;
  }
  return flags;
}

const since = (flag) => FLAGS_BY_DATE.find(([, dated]) => dated === flag)?.[0];

// How wrangler.toml selects `entry`: the dates its flag is on from, until a newer one's is.
function howToSelect(entry) {
  const from = since(entry.flag);
  const newer = PYODIDES.slice(0, PYODIDES.indexOf(entry));
  const until = newer.map((other) => since(other.flag)).filter(Boolean).sort()[0];
  const dates = from ? `a compatibility_date from ${from}${until ? ` and before ${until}` : ''}, or ` : '';
  return `Pyodide ${entry.pyodide} (Python ${entry.python}): ${dates}` +
    `compatibility_flags ["python_workers", "${entry.flag}"]`;
}

// The entry of PYODIDES that `flags` (compatFlags') select; a clear error when the host does
// not run it.
export function pyodideFor(flags) {
  const supported = PYODIDES.filter((entry) => entry.module).map(howToSelect).join('; ');
  if (!flags.python_workers) {
    throw new Error(
      'wrangler.toml: compatibility_flags lacks "python_workers", which a Python Worker needs. ' +
        `The tickwork host runs ${supported}.`,
    );
  }
  const selected = PYODIDES.find((entry) => flags[entry.flag]);
  if (!selected.module) {
    throw new Error(
      `wrangler.toml: its compatibility_date and compatibility_flags select Pyodide ${selected.pyodide} ` +
        `(Python ${selected.python}, flag ${selected.flag}), which the tickwork host does not run. ` +
        `It runs ${supported}.`,
    );
  }
  return selected;
}
