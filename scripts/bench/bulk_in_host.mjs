#!/usr/bin/env node
// scripts/bench/bulk.py on the host: the bundled Worker's tickwork on Pyodide 0.28.2, its store
// Miniflare's local D1, reached as the Worker reaches it (`self.env.<binding>` through the
// workers-runtime-sdk's wrappers): three D1 databases in a temporary directory, each migrated as
// `wrangler d1 migrations apply` would.
// Prints one JSON line per measurement, then exits non-zero naming the goals missed.
//
//   node scripts/bench/bulk_in_host.mjs [--bundle build/worker]

import { ExecutionContext } from '../host/bindings.mjs';
import { benchOptions, report, withHost, wranglerToml } from './host_bench.mjs';

const { bundle } = benchOptions();
const bindings = ['DB_BULK', 'DB_RUN', 'DB_SINGLE'];

await report('hand_over_in_bulk', () =>
  withHost(
    { bundle, toml: wranglerToml('tickwork-bench-bulk', bindings), script: 'bulk.py' },
    async ({ platform, bench }) => JSON.parse(await bench.host_main(new ExecutionContext(), platform.env)),
  ),
);
