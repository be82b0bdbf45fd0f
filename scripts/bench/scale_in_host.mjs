#!/usr/bin/env node
// scripts/bench/scale.py on the host: the bundled Worker's tickwork on the host's Pyodide, its store
// Miniflare's local D1, reached as the Worker reaches it (`self.env.<binding>` through the
// workers-runtime-sdk's wrappers). One D1 database per N (100, 10,000, 100,000) and one for the
// month's rows written, in a temporary directory, each migrated as `wrangler d1 migrations apply`
// would.
// Prints one JSON line per measurement, then exits non-zero naming the goals missed.
//
//   node scripts/bench/scale_in_host.mjs [--bundle build/worker] [--sizes 100,10000,100000]

import { ExecutionContext } from '../host/bindings.mjs';
import { benchOptions, report, withHost, wranglerToml } from './host_bench.mjs';

const { bundle, sizes } = benchOptions('100,10000,100000');
const bindings = [...sizes.map((n) => `DB_${n}`), 'DB_MONTH'];

// One attempt, in a fresh Miniflare and Pyodide: every database empty, the figures from scratch.
await report('tick_at_scale', () =>
  withHost(
    { bundle, toml: wranglerToml('tickwork-bench-scale', bindings), script: 'scale.py' },
    async ({ platform, bench }) => JSON.parse(await bench.host_main(new ExecutionContext(), platform.env, sizes)),
  ),
);
