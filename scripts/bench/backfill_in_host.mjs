#!/usr/bin/env node
// scripts/bench/backfill.py on the host: the bundled Worker's tickwork on Pyodide, its store
// Miniflare's local D1, whose meta.rows_read counts rows read as D1 bills them. A month of a
// minutely schedule is not ticked through here: its first tick, then one after 40,000 occurrences
// more were made; and 500 backfills asked at one moment against 10. Prints one JSON line per
// measurement and exits non-zero naming the goals missed.
//
//   node scripts/bench/backfill_in_host.mjs [--bundle build/worker]

import { ExecutionContext } from '../host/bindings.mjs';
import { benchOptions, report, withHost, wranglerToml } from './host_bench.mjs';

const { bundle } = benchOptions();

await report('backfill', () =>
  withHost(
    { bundle, toml: wranglerToml('tickwork-bench-backfill', ['DB_FEW', 'DB_MANY', 'DB_MONTH']), script: 'backfill.py' },
    async ({ platform, bench }) => JSON.parse(await bench.host_main(new ExecutionContext(), platform.env)),
  ),
);
