// The local Workers host: the Worker's bundle on Pyodide, its bindings on Miniflare.
//
// `Host.start` loads both; `scheduled`, `queue` and `fetch` deliver one event each, as the
// runtime would. After a scheduled event the host reads the tick's run records back from D1 and
// reports each run or skip once.

import path from 'node:path';

import { MessageBatch, ScheduledController } from './bindings.mjs';
import { compatFlags, Platform } from './platform.mjs';
import { PythonWorker } from './python.mjs';
import { iso } from './times.mjs';

// The tick's records: a tick's ids begin with `z` and its tick in hex (tickwork's
// schedule_store.run_id), read along the primary key; others, through the index by tick.
const RUNS_OF_TICK = `
SELECT id, schedule, due_at, tick_at, started_at, ended_at, outcome, code, kind, detail, at, n, i, dst,
       items, batches, trace, events, by_hand, backfill, attempt
FROM (
  SELECT * FROM tickwork_runs
  WHERE id >= 'z' || printf('%012x', CAST(?1 AS INTEGER)) AND id < 'z' || printf('%012x', CAST(?1 AS INTEGER) + 60000)
    AND tick_at >= ?1 AND tick_at < ?1 + 60000
  UNION ALL
  SELECT * FROM tickwork_runs INDEXED BY tickwork_runs_by_tick
  WHERE id < 'z' AND tick_at >= ?1 AND tick_at < ?1 + 60000)
ORDER BY started_at IS NULL, started_at, schedule, due_at`;

const RUNS_READ_EVERY_MS = 1000;

const NO_FETCH =
  'This Worker has no fetch handler: its class Default defines no `async def fetch(self, request)`. ' +
  'Add one to answer HTTP requests; ticks need none (GET /cdn-cgi/handler/scheduled runs one).\n';

export function runRecord(row) {
  const duration = row.started_at != null && row.ended_at != null ? row.ended_at - row.started_at : null;
  return {
    schedule: row.schedule,
    due: iso(row.due_at),
    outcome: row.outcome,
    code: row.code ?? null,
    kind: row.kind ?? null,
    duration_ms: duration,
    detail: row.detail ?? null,
    tick: iso(row.tick_at),
    due_at: row.due_at,
    tick_at: row.tick_at,
    started_at: row.started_at ?? null,
    ended_at: row.ended_at ?? null,
    at: row.at ?? null,
    n: row.n ?? null,
    i: row.i ?? null,
    dst: row.dst ?? null,
    items: row.items ?? null,
    batches: row.batches == null ? null : JSON.parse(row.batches),
    events: row.events == null ? null : JSON.parse(row.events),
    trace: row.trace ?? null,
    by_hand: row.by_hand ?? null,
    backfill: row.backfill ?? null,
    attempt: row.attempt ?? 1,
    id: row.id,
  };
}

// What a terminal acts on instead of showing, in text read from D1 (a run's detail, who asked for
// it by hand): C0 and C1 controls (screen clears, window titles, OSC 8 links) and the
// bidirectional overrides. A line shows each as its escape; a JSON line, as a JSON escape (C0 ones
// JSON.stringify escapes itself).
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const JSON_RAW = /[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const hex = (c, digits) => c.charCodeAt(0).toString(16).padStart(digits, '0');

export function printable(text) {
  return text.replace(CONTROLS, (c) => (c.charCodeAt(0) < 0x100 ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`));
}

export function jsonLine(value) {
  return JSON.stringify(value).replace(JSON_RAW, (c) => `\\u${hex(c, 4)}`);
}

// One line per run or skip: schedule, due time, what the call was for, outcome, duration.
export function describeRun(run) {
  const why = [run.code, run.kind].filter(Boolean).join(', ');
  const took = run.duration_ms == null ? '' : ` in ${run.duration_ms} ms`;
  const detail = run.outcome === 'failed' && run.detail ? `: ${run.detail}` : '';
  const input = [
    run.at != null && run.at !== run.due_at ? `at ${iso(run.at)}` : '',
    run.i != null ? `share ${run.i} of ${run.n}` : '',
    run.dst ?? '',
  ].filter(Boolean).join(', ');
  const call = input ? ` [${input}]` : '';
  const attempt = run.attempt > 1 ? ` (attempt ${run.attempt})` : '';
  const did = run.items != null ? `, ${run.items} record${run.items === 1 ? '' : 's'} purged` : emittedWords(run.events);
  // A run by hand made before the schedule was due is for no due time: it moved none.
  const asked = run.backfill != null ? `, backfill by ${run.backfill}` : '';
  const when = run.by_hand == null ? `due ${run.due}${asked}`
    : run.due_at > run.tick_at ? `run by hand by ${run.by_hand}` : `due ${run.due}, by hand by ${run.by_hand}`;
  return printable(`${run.schedule} ${when}${call}${attempt}: ${run.outcome}${why ? ` (${why})` : ''}${did}${took}${detail}`);
}

// What a run emitted, as tickwork's model.what_a_run_did says it: ", 3 events emitted (a 1, b 2)".
function emittedWords(events) {
  const names = Object.keys(events ?? {}).sort();
  const count = names.reduce((sum, name) => sum + events[name], 0);
  if (!count) return '';
  return `, ${count} event${count === 1 ? '' : 's'} emitted (${names.map((name) => `${name} ${events[name]}`).join(', ')})`;
}

// One line per queue batch: how many messages, and what became of them.
export function describeBatch(queue, count, { all, each }, error) {
  let acked = 0;
  let retried = 0;
  for (const decision of Object.values(each)) {
    if (decision.ack) acked++;
    else retried++;
  }
  const rest = count - acked - retried;
  if (error) retried += rest;
  else if (all?.retry) retried += rest;
  else acked += rest;
  const failed = error ? ', the handler failed' : '';
  return `queue ${queue}: ${count} message${count === 1 ? '' : 's'}, ${acked} acked, ${retried} retried${failed}`;
}

export class Host {
  constructor({ platform, worker, output }) {
    this.platform = platform;
    this.worker = worker;
    this.output = output;
    this.reported = new Set();
    this.listeners = new Set();
  }

  // `output(stream, line)` receives the Worker's own stdout/stderr lines.
  static async start({ configPath, bundleDir, persistTo, output = () => {}, mainModule }) {
    let host;
    let ready;
    const started = new Promise((resolve, reject) => (ready = { resolve, reject }));
    started.catch(() => {});
    // A batch may come before the Worker is loaded: it waits for it (or fails, and is retried).
    const platform = await Platform.start({
      configPath,
      persistTo,
      onQueue: async (batch) => (await started).queue(batch),
    });
    try {
      await platform.migrate();
      const main = mainModule ?? path.basename(platform.config.main ?? 'entry.py');
      const worker = await PythonWorker.load({
        bundleDir,
        mainModule: main,
        env: platform.env,
        compatFlags: compatFlags(platform.config),
        output: (stream, line) => (host ? host.emit(stream, line) : output(stream, line)),
      });
      host = new Host({ platform, worker, output });
      ready.resolve(host);
      return host;
    } catch (error) {
      ready.reject(error);
      await platform.dispose();
      throw error;
    }
  }

  emit(stream, line) {
    for (const listener of this.listeners) listener(stream, line);
    this.output(stream, line);
  }

  // Runs `fn` while collecting every line the Worker and the host print meanwhile.
  async capturing(fn) {
    const lines = [];
    const listener = (stream, line) => lines.push({ stream, line });
    this.listeners.add(listener);
    try {
      return { value: await fn(), lines };
    } catch (error) {
      error.lines = lines;
      throw error;
    } finally {
      this.listeners.delete(listener);
    }
  }

  // One cron event at `time` (epoch ms). Returns the runs and skips it recorded, each once: its
  // own tick's and, while queues are bound, those of the ticks at the 10-second marks after it.
  // With `onRun`, each is also handed to it as it ends: the run records are read every second
  // while the invocation lasts (up to the minute's last mark), not only once it is over.
  async scheduled(cron, time, onRun) {
    const invocation = this.worker.invoke('scheduled', [new ScheduledController(cron, time)]);
    const runs = [];
    const found = (fresh) => {
      for (const run of fresh) {
        runs.push(run);
        onRun?.(run);
      }
    };
    if (onRun) {
      let over = false;
      const ended = invocation.then(() => (over = true), () => (over = true));
      while (!over) {
        let timer;
        await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, RUNS_READ_EVERY_MS)))]);
        clearTimeout(timer);
        if (!over) found(await this.runsOfTick(time).catch(() => []));
      }
    }
    await invocation;
    found(await this.runsOfTick(time));
    return runs;
  }

  async runsOfTick(time) {
    const store = this.worker.storeBinding();
    const database = store && this.platform.databases[store];
    if (!database) return [];
    const { results } = await database.db.prepare(RUNS_OF_TICK).bind(time).all();
    const fresh = results.filter((row) => !this.reported.has(row.id) && row.outcome !== 'running');
    for (const row of fresh) this.reported.add(row.id);
    return fresh.map(runRecord);
  }

  // A batch from Miniflare's queue consumer; the answer says what to ack and retry. When the
  // handler throws, `error` says so and the consumer retries what was not acked one by one.
  async queue({ queue, messages }) {
    const batch = new MessageBatch(queue, messages);
    let error;
    try {
      await this.worker.invoke('queue', [batch]);
    } catch (thrown) {
      error = thrown;
      this.emit('stderr', `queue ${queue}: the handler failed: ${String(thrown.message ?? thrown).trimEnd()}`);
    }
    const verdicts = batch.verdicts();
    this.emit('stdout', describeBatch(queue, messages.length, verdicts, error));
    if (!error) return verdicts;
    const lines = String(error.message ?? error).split('\n').filter((line) => line.trim());
    return { ...verdicts, error: lines.at(-1) ?? 'failed' };
  }

  async fetch(request) {
    if (!this.worker.handlerNames().includes('fetch')) {
      return new Response(NO_FETCH, { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    }
    return await this.worker.invoke('fetch', [request], { relaxed: true });
  }

  // tickwork's console at `prefix`, served with no login: cli.mjs lets only this machine's pages
  // reach it.
  async console(request, prefix) {
    return await this.worker.console(request, prefix);
  }

  // The statements of one batch of the operator's command (tickwork_cli's DevHostD1), run on the
  // Worker's own D1 binding, so that one process holds the local D1 while `dev` runs. The rows of each.
  async batchOfTheCommand(binding, statements) {
    const database = this.platform.databases[binding];
    if (!database) throw new Error(`no D1 database is bound as ${binding}`);
    const { db } = database;
    const done = await db.batch(statements.map(({ sql, params }) => db.prepare(sql).bind(...params)));
    return done.map((result) => result.results ?? []);
  }

  async reset() {
    this.reported.clear();
    return await this.platform.reset();
  }

  async dispose() {
    await this.platform.dispose();
  }
}
