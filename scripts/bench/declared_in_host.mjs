#!/usr/bin/env node
// scripts/bench/declared.py on the host: a nothing-due tick at N declared schedules, the bundled
// Worker's tickwork on Pyodide, its store Miniflare's local D1 (one database per N).
// Prints one JSON line per measurement, then exits non-zero naming the goals missed.
//
//   node scripts/bench/declared_in_host.mjs [--bundle build/worker] [--sizes 100,10000,100000]

import { ExecutionContext } from '../host/bindings.mjs';
import { benchOptions, report, withHost, wranglerToml } from './host_bench.mjs';

const { bundle, sizes } = benchOptions('100,10000,100000');

await report('declared_schedules', () =>
  withHost(
    { bundle, toml: wranglerToml('tickwork-bench-declared', sizes.map((n) => `DB_${n}`)), script: 'declared.py' },
    async ({ platform, bench }) => JSON.parse(await bench.host_main(new ExecutionContext(), platform.env, sizes)),
  ),
);
