#!/usr/bin/env node
// scripts/bench/housekeeping.py on the host: the bundled Worker's tickwork on the host's Pyodide,
// its store Miniflare's local D1, reached as the Worker reaches it (`self.env.<binding>` through the
// workers-runtime-sdk's wrappers; D1 calls go through the host's JS Worker, as outbox_in_host.mjs
// has them). A D1 database per N of old run records, in a temporary directory, migrated as
// `wrangler d1 migrations apply` would, ticked a minute apart until housekeeping has emptied it.
// Prints one JSON line per measurement, then exits non-zero naming the goals missed.
//
//   node scripts/bench/housekeeping_in_host.mjs [--bundle build/worker] [--sizes 1000000]

import { ExecutionContext } from '../host/bindings.mjs';
import { benchOptions, report, withHost, wranglerToml } from './host_bench.mjs';

const { bundle, sizes } = benchOptions('1000000');
const toml = wranglerToml('tickwork-bench-housekeeping', sizes.map((n) => `DB_${n}`));

// One attempt, in a fresh Miniflare and Pyodide, its state in a fresh temporary directory.
await report('housekeeping', () =>
  withHost({ bundle, toml, script: 'housekeeping.py' }, async ({ platform, bench }) =>
    JSON.parse(await bench.host_main(new ExecutionContext(), platform.env, sizes)),
  ),
);
