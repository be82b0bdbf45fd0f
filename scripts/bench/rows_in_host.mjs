#!/usr/bin/env node
// scripts/bench/rows.py on the host: the bundled Worker's tickwork on Pyodide, its store Miniflare's
// local D1, whose meta.rows_written counts rows as D1 bills them (index entries included). Prints
// one JSON line per measurement, then the month's table, and exits non-zero naming the goals missed.
//
//   node scripts/bench/rows_in_host.mjs [--bundle build/worker]

import { ExecutionContext } from '../host/bindings.mjs';
import { benchOptions, report, withHost, wranglerToml } from './host_bench.mjs';

const { bundle } = benchOptions();

await report('rows_written', () =>
  withHost(
    { bundle, toml: wranglerToml('tickwork-bench-rows', ['DB_DUE', 'DB_IDLE', 'DB_KEPT', 'DB_LOST', 'DB_LOST_MARKS']), script: 'rows.py' },
    async ({ platform, bench }) => {
      const outcome = JSON.parse(await bench.host_main(new ExecutionContext(), platform.env));
      console.log(outcome.table);
      return outcome;
    },
  ),
);
