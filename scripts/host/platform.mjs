// The bindings of wrangler.toml, served by Miniflare (workerd) with wrangler's local state.
//
// D1 databases persist where `wrangler d1 execute <db> --local [--persist-to DIR]` looks
// (DIR/v3/d1), so both see the same data. Queues are Miniflare's real queues: producers are
// handed to the Worker, and a small JS consumer Worker inside Miniflare forwards each batch to
// the host, then acks or retries its messages as the Python handler decided (see CONSUMER).
//
// D1 work is done by that same JS Worker, with the real D1 bindings: the host posts each call
// (`all`, `run`, `first`, `raw`, `batch`, `exec` and its statements) to it as JSON with
// `mf.dispatchFetch`, asynchronously, and it answers D1's result or D1's error as JSON. The host
// never uses Miniflare's D1 proxy (`mf.getD1Database`): its `prepare()` and `bind()` are
// synchronous calls into workerd, and Miniflare's SynchronousFetcher, which serves them, can fail
// an assertion under many calls (a Worker making a thousand statements saw it).

import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Miniflare, supportedCompatibilityDate } from 'miniflare';

import { AnalyticsEngineDataset, D1Database, WorkerQueue, WorkflowImpl } from './bindings.mjs';

export { compatFlags } from './runtimes.mjs';

// The route of the JS Worker that does the host's D1 calls, and the header holding the secret a
// request there must carry (Miniflare listens on a loopback port that other programs may reach).
const D1_ROUTE = '/__tickwork_host/d1';
const WORKFLOW_ROUTE = '/__tickwork_host/workflow';
// The Workflows' own JS module, beside the configuration: it exports each `class_name` of its
// `[[workflows]]` (a Workflow of another Worker, `script_name`, too: the host runs them all here).
const WORKFLOWS_MODULE = 'workflows.mjs';
const D1_TOKEN_HEADER = 'x-tickwork-host-token';
const D1_TOKEN_BINDING = 'TICKWORK_HOST_D1_TOKEN';

// The consumer Worker inside Miniflare, which also runs the host's D1 calls (see `d1`). Queue
// bodies cross to Node as JSON, bytes and dates tagged.
// The handler's verdict is applied one message at a time, as the runtime applies it: a call on
// the message itself first, then one on the batch; when the handler threw, every message not
// acked one by one is retried. The consumer never throws for the handler: Miniflare would then
// retry the whole batch, explicit acks included, where the real queue keeps those acks.
const CONSUMER = `
const base64 = (bytes) => {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
};
const encode = (body) => {
  if (body instanceof ArrayBuffer) return { bytes: base64(new Uint8Array(body)), view: 'ArrayBuffer' };
  if (ArrayBuffer.isView(body)) {
    const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    return { bytes: base64(bytes), view: body.constructor.name };
  }
  if (body instanceof Date) return { date: body.getTime() };
  return { json: body === undefined ? null : body };
};

// One D1 call from the host, run by the real binding: statements are bound here again with the
// values the host's bind() already checked as D1 does, so D1 sees what it would have sent.
const d1 = async ({ binding, method, statements = [], sql, column, options }, env) => {
  try {
    const db = env[binding];
    if (!db || typeof db.prepare !== 'function') throw new Error('no D1 database bound as ' + binding);
    if (method === 'exec') return { value: await db.exec(sql) };
    const prepared = statements.map((statement) => db.prepare(statement.sql).bind(...statement.params));
    if (method === 'batch') return { value: await db.batch(prepared) };
    const [statement] = prepared;
    if (method === 'first') return { value: column === undefined ? await statement.first() : await statement.first(column) };
    if (method === 'raw') return { value: options === undefined ? await statement.raw() : await statement.raw(options) };
    if (method === 'all') return { value: await statement.all() };
    if (method === 'run') return { value: await statement.run() };
    throw new Error('no D1 method ' + method);
  } catch (error) {
    return { error: { name: error?.name, message: String(error?.message ?? error), cause: error?.cause?.message } };
  }
};

// One Workflow call from the host (bindings.mjs WorkflowImpl), made on the real binding.
const workflow = async ({ binding, op, id, params }, env) => {
  try {
    const flow = env[binding];
    if (!flow || typeof flow.create !== 'function') throw new Error('no Workflow bound as ' + binding);
    if (op === 'create') return { value: (await flow.create(id === undefined ? { params } : { id, params })).id };
    const instance = await flow.get(id);
    if (op === 'status') return { value: await instance.status() };
    if (['terminate', 'pause', 'resume'].includes(op)) return { value: (await instance[op](), null) };
    throw new Error('no Workflow call ' + op);
  } catch (error) {
    return { error: { name: error?.name, message: String(error?.message ?? error) } };
  }
};

export default {
  async fetch(request, env) {
    const route = new URL(request.url).pathname;
    if ((route === '${D1_ROUTE}' || route === '${WORKFLOW_ROUTE}') && request.method === 'POST' &&
        request.headers.get('${D1_TOKEN_HEADER}') === env.${D1_TOKEN_BINDING}) {
      const call = await request.json();
      return Response.json(route === '${D1_ROUTE}' ? await d1(call, env) : await workflow(call, env));
    }
    return new Response('the tickwork host serves the Worker from Node', { status: 404 });
  },
  async queue(batch, env) {
    const messages = batch.messages.map((message) => ({
      id: message.id,
      timestamp: message.timestamp.getTime(),
      body: encode(message.body),
      attempts: message.attempts,
    }));
    const response = await env.HOST.fetch('http://host/queue', {
      method: 'POST',
      body: JSON.stringify({ queue: batch.queue, messages }),
    });
    if (!response.ok) throw new Error('the tickwork host failed to deliver the batch: ' + (await response.text()));
    const verdict = await response.json();
    for (const message of batch.messages) {
      const own = verdict.each?.[message.id];
      const decision = verdict.error
        ? own?.ack ? own : { retry: true, delaySeconds: own?.delaySeconds ?? verdict.all?.delaySeconds }
        : own ?? verdict.all;
      if (decision?.ack) message.ack();
      else if (decision?.retry) {
        message.retry(decision.delaySeconds == null ? undefined : { delaySeconds: decision.delaySeconds });
      }
    }
  },
};
`;

// The bindings are wrangler's own reading: `[vars]`, and the secrets of `.dev.vars` beside the
// config (KEY=value lines, as `wrangler dev` reads them), become the Worker's env. What wrangler
// says meanwhile (`Using secrets defined in .dev.vars`) goes to stderr, so that with --json
// stdout holds only JSON.
export async function readConfig(configPath) {
  const wrangler = await import('wrangler');
  const log = console.log;
  console.log = console.error;
  try {
    const config = wrangler.unstable_readConfig({ config: configPath });
    const { workerOptions } = wrangler.unstable_getMiniflareWorkerOptions(config);
    return { config, workerOptions, splitSql: wrangler.unstable_splitSqlQuery };
  } finally {
    console.log = log;
  }
}

const ERRORS = new Map([['Error', Error], ['TypeError', TypeError], ['RangeError', RangeError]]);

// One D1 call, done by the JS Worker in Miniflare (see `d1` in CONSUMER): its value, or D1's
// error thrown again here with D1's message (and cause).
async function d1Call(mf, token, binding, call, route = D1_ROUTE) {
  const response = await mf.dispatchFetch(`http://tickwork-host${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [D1_TOKEN_HEADER]: token },
    body: JSON.stringify({ binding, ...call }),
  });
  const text = await response.text();
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new Error(`the tickwork host's D1 Worker answered ${response.status}: ${text.slice(0, 500)}`);
  }
  if (answer.error) {
    const { name, message, cause } = answer.error;
    const error = new (ERRORS.get(name) ?? Error)(message, cause === undefined ? undefined : { cause: new Error(cause) });
    if (typeof name === 'string' && !ERRORS.has(name)) error.name = name;
    throw error;
  }
  return answer.value ?? null;
}

// The JS Worker's script, and the configuration's Workflows run in Miniflare beside it: their
// classes are exported from its module, from WORKFLOWS_MODULE beside the configuration.
function workflowOptions(config, root, persistTo) {
  const flows = config.workflows ?? [];
  if (!flows.length) return { modules: true, script: CONSUMER };
  const file = path.join(root, WORKFLOWS_MODULE);
  let contents;
  try {
    contents = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`the configuration binds Workflows (${flows.map((f) => f.binding).join(', ')}): the host ` +
                    `runs their classes from ${file}, which it cannot read`);
  }
  return {
    modules: [
      { type: 'ESModule', path: 'tickwork_host.mjs', contents: `${CONSUMER}\nexport * from './${WORKFLOWS_MODULE}';\n` },
      { type: 'ESModule', path: WORKFLOWS_MODULE, contents },
    ],
    workflows: Object.fromEntries(flows.map((f) => [f.binding, { name: f.name, className: f.class_name }])),
    workflowsPersist: path.join(persistTo, 'v3', 'workflows'),
  };
}

export class Platform {
  constructor({ mf, config, splitSql, env, databases, queues, datasets = {} }) {
    this.mf = mf;
    this.config = config;
    this.splitSql = splitSql;
    this.env = env;
    this.databases = databases; // binding -> { db (a D1Database, bindings.mjs), migrationsDir, migrationsTable }
    this.queues = queues;
    this.datasets = datasets; // binding -> AnalyticsEngineDataset (bindings.mjs), keeping its points
  }

  // `onQueue({queue, messages})` answers the consumer Worker with the handler's verdicts.
  static async start({ configPath, persistTo, onQueue }) {
    const { config, workerOptions, splitSql } = await readConfig(configPath);
    const root = path.dirname(path.resolve(configPath));
    const token = randomUUID();
    const mf = new Miniflare({
      ...workflowOptions(config, root, persistTo),
      // The JS Worker serving the bindings, not the Python Worker: a date newer than this
      // Miniflare's workerd knows is refused, so it gets the newest one workerd takes.
      compatibilityDate: [config.compatibility_date, supportedCompatibilityDate].sort()[0],
      d1Databases: workerOptions.d1Databases,
      queueProducers: workerOptions.queueProducers,
      queueConsumers: workerOptions.queueConsumers,
      serviceBindings: {
        HOST: async (request) => {
          const batch = await request.json();
          return Response.json(await onQueue(batch));
        },
      },
      bindings: { [D1_TOKEN_BINDING]: token },
      d1Persist: path.join(persistTo, 'v3', 'd1'),
      queuesPersist: path.join(persistTo, 'v3', 'queues'),
      log: undefined,
    });
    await mf.ready;

    const env = {};
    for (const [name, value] of Object.entries(workerOptions.bindings ?? {})) env[name] = value;
    const databases = {};
    for (const database of config.d1_databases ?? []) {
      const db = new D1Database((call) => d1Call(mf, token, database.binding, call));
      env[database.binding] = db;
      databases[database.binding] = {
        db,
        migrationsDir: path.resolve(root, database.migrations_dir ?? 'migrations'),
        migrationsTable: database.migrations_table ?? 'd1_migrations',
      };
    }
    for (const flow of config.workflows ?? []) {
      env[flow.binding] = new WorkflowImpl(
        (call) => d1Call(mf, token, flow.binding, call, WORKFLOW_ROUTE), flow.binding);
    }
    const queues = [];
    for (const producer of config.queues?.producers ?? []) {
      env[producer.binding] = new WorkerQueue(await mf.getQueueProducer(producer.binding));
      queues.push(producer.queue);
    }
    for (const consumer of config.queues?.consumers ?? []) queues.push(consumer.queue);
    // `[version_metadata] binding = "..."`: as Cloudflare gives each uploaded version an id, each
    // start of the host is a version of its own (TICKWORK_VERSION_TAG its tag, where set).
    if (config.version_metadata?.binding) {
      env[config.version_metadata.binding] = {
        id: randomUUID(), tag: process.env.TICKWORK_VERSION_TAG ?? '', timestamp: new Date().toISOString(),
      };
    }
    // `[[analytics_engine_datasets]]`: kept in memory, where Miniflare's would drop what it is written.
    const datasets = {};
    for (const { binding, dataset } of config.analytics_engine_datasets ?? []) {
      if (binding) env[binding] = datasets[binding] = new AnalyticsEngineDataset(dataset ?? binding);
    }
    return new Platform({ mf, config, splitSql, env, databases, queues, datasets });
  }

  hasQueues() {
    return this.queues.length > 0;
  }

  // Applies the migrations not yet applied, as `wrangler d1 migrations apply --local` does and
  // in its own table, so either tool sees the other's work. Returns the names applied.
  async migrate() {
    const applied = [];
    for (const [binding, { db, migrationsDir, migrationsTable }] of Object.entries(this.databases)) {
      let files;
      try {
        files = readdirSync(migrationsDir).filter((name) => name.endsWith('.sql'));
      } catch {
        continue;
      }
      files.sort((a, b) => parseInt(a.split('_')[0]) - parseInt(b.split('_')[0]));
      await db.exec(
        `CREATE TABLE IF NOT EXISTS ${migrationsTable}(id INTEGER PRIMARY KEY AUTOINCREMENT, ` +
          `name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL);`,
      );
      const done = new Set(
        (await db.prepare(`SELECT name FROM ${migrationsTable}`).all()).results.map((row) => row.name),
      );
      for (const file of files.filter((name) => !done.has(name))) {
        const sql = readFileSync(path.join(migrationsDir, file), 'utf8');
        const statements = this.splitSql(sql).map((statement) => db.prepare(statement));
        statements.push(db.prepare(`INSERT INTO ${migrationsTable} (name) VALUES (?1)`).bind(file));
        await db.batch(statements);
        applied.push(`${binding}: ${file}`);
      }
    }
    return applied;
  }

  // Drops every table of every D1 database, then applies the migrations again.
  async reset() {
    for (const { db } of Object.values(this.databases)) {
      const { results } = await db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' " +
            "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
        )
        .all();
      if (results.length) {
        await db.batch([
          db.prepare('PRAGMA defer_foreign_keys = on'),
          ...results.map(({ name }) => db.prepare(`DROP TABLE IF EXISTS "${name}"`)),
        ]);
      }
    }
    return await this.migrate();
  }

  async dispose() {
    await this.mf.dispose();
  }
}
