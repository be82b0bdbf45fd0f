#!/usr/bin/env node
// scripts/bench/outbox.py on the host: the bundled Worker's tickwork on the host's Pyodide, its store
// Miniflare's D1 and its queues Miniflare's real queues, reached as the Worker reaches them
// (`self.env.<binding>` through the workers-runtime-sdk's wrappers). The host's own Platform
// builds Miniflare from a wrangler.toml of the benchmark's (in a temporary directory, with its
// state): a D1 database per emitting case and per number of delivered deliveries, migrated as
// `wrangler d1 migrations apply` would; a producer OUTBOX whose queue nothing consumes (the
// emitting ticks and the sweeps send there); and LATENCY, a queue the benchmark consumes through
// tickwork's queue handler, for the time from emit to consumer.
// Prints one JSON line per measurement, then exits non-zero naming the goals missed.
//
//   node scripts/bench/outbox_in_host.mjs [--bundle build/worker] [--no-latency]

import { parseArgs } from 'node:util';

import { ExecutionContext, MessageBatch } from '../host/bindings.mjs';
import { PROXY_FAULT, report, withHost, wranglerToml } from './host_bench.mjs';

const { values } = parseArgs({
  options: {
    bundle: { type: 'string', default: 'build/worker' },
    'no-latency': { type: 'boolean', default: false },
  },
});
const EMITTING = ['EMIT_1_ONE', 'EMIT_1_MANY', 'EMIT_100_ONE', 'EMIT_100_MANY', 'EMIT_1000_ONE', 'EMIT_1000_MANY'];
const DELIVERED = [1000, 10000, 100000];
const SINK = 'tickwork-bench-sink';
const LATENCY = 'tickwork-bench-latency';
const BATCH_TIMEOUT = 0; // seconds Miniflare's queue waits to fill a batch of the latency queue

const TOML = wranglerToml(
  'tickwork-bench-outbox',
  [...EMITTING, ...DELIVERED.map((n) => `DB_${n}`), 'DB_LATENCY'],
  `
[[queues.producers]]
binding = "OUTBOX"
queue = "${SINK}"

[[queues.producers]]
binding = "LATENCY"
queue = "${LATENCY}"

[[queues.consumers]]
queue = "${LATENCY}"
max_batch_size = 10
max_batch_timeout = ${BATCH_TIMEOUT}
max_retries = 1
`,
);

// One attempt, in a fresh Miniflare and Pyodide, its state in a fresh temporary directory.
// tickwork tries a batch D1 refused again for as long as its runs' leases last; a fault of
// Miniflare's proxy would fail every try, so the attempt ends at the first one it prints.
async function attempt() {
  let bench;
  let faulted;
  const fault = new Promise((resolve, reject) => (faulted = reject));
  fault.catch(() => {});
  return await withHost(
    {
      bundle: values.bundle,
      toml: TOML,
      script: 'outbox.py',
      // The Worker's queue(batch), as the host delivers it: tickwork's run_queue with the
      // benchmark's consumer; the verdicts go back to Miniflare's queue.
      onQueue: async ({ queue, messages }) => {
        const batch = new MessageBatch(queue, messages);
        await bench.on_queue(batch);
        return batch.verdicts();
      },
      output: (stream, line) => {
        process.stderr.write(`${line.length > 300 ? `${line.slice(0, 150)} ... ${line.slice(-150)}` : line}\n`);
        if (PROXY_FAULT.test(line)) faulted(new Error(line.slice(-200)));
      },
    },
    async ({ platform, bench: loaded }) => {
      bench = loaded;
      const found = JSON.parse(
        await Promise.race([bench.host_main(new ExecutionContext(), platform.env, EMITTING, 'OUTBOX'), fault]),
      );
      if (!values['no-latency']) {
        const latency = JSON.parse(
          await Promise.race([
            bench.host_latency(new ExecutionContext(), platform.env, 'DB_LATENCY', LATENCY, BATCH_TIMEOUT),
            fault,
          ]),
        );
        found.results.push(...latency.results);
        found.missed.push(...latency.missed);
      }
      return found;
    },
  );
}

await report('outbox', attempt, 3);
