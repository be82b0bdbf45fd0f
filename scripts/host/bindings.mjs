// The JS objects a Python Worker meets in the Workers runtime, as the host builds them.
//
// The SDK (`workers-runtime-sdk`) recognises a binding by its JS constructor's name
// (`D1Database`, `WorkerQueue`, ...) and only then converts arguments (`None` to null) and
// results (objects to dicts). Miniflare's own proxies have no such names, so each binding is
// a small class here named as the runtime names it, doing its work in Miniflare.

// D1's calls an invocation (the Paid plan's), and what workerd answers past them.
export const INVOCATION_CALLS = 1000;
export const PAST_THE_CAP = 'Too many API requests by single worker invocation.';

// D1 as the Worker meets it. `prepare()` and `bind()` only record the statement and its values,
// checked and converted as workerd's own `bind()` does (a value of another type fails there with
// D1's `D1_TYPE_ERROR`). Nothing reaches Miniflare until `all`, `run`, `first`, `raw`, `batch` or
// `exec` is awaited: then `send({method, statements: [{sql, params}], ...})` hands the work to the
// real D1 binding inside workerd in one asynchronous request (platform.mjs), which answers D1's
// results or rethrows D1's error. No call here is synchronous: Miniflare's synchronous proxy calls
// (its SynchronousFetcher) can fail under many calls.
export class D1Database {
  #send;

  constructor(send) {
    this.#send = send;
  }

  // The database as one invocation of the Worker reaches it: workerd counts an invocation's calls
  // to D1 (a batch is one) and refuses those past D1's 1,000 (the Paid plan's; 50 on Free) with
  // its own error, sending nothing. The host's own reads (migrations, the run records) are no
  // invocation's.
  forInvocation() {
    let calls = 0;
    return new D1Database((call) =>
      ++calls > INVOCATION_CALLS ? Promise.reject(new Error(PAST_THE_CAP)) : this.#send(call));
  }

  prepare(sql) {
    return new D1PreparedStatement(this.#send, sql, []);
  }

  async batch(statements) {
    return await this.#send({ method: 'batch', statements: Array.from(statements, D1PreparedStatement.recorded) });
  }

  async exec(sql) {
    return await this.#send({ method: 'exec', sql });
  }
}

// workerd's D1PreparedStatement.bind(), value by value: numbers and strings as they are, booleans
// as 1 or 0, null, and bytes (an array of 0-255, an ArrayBuffer or a view) as an array of bytes.
// What comes out is what D1 itself sends as JSON.
function d1Value(value) {
  const type = typeof value;
  if (type === 'number' || type === 'string') return value;
  if (type === 'boolean') return value ? 1 : 0;
  if (type === 'object') {
    if (value == null) return value;
    if (Array.isArray(value) && value.every((byte) => typeof byte == 'number' && byte >= 0 && byte < 256)) {
      return value;
    }
    if (value instanceof ArrayBuffer) return Array.from(new Uint8Array(value));
    if (ArrayBuffer.isView(value)) return Array.from(value);
  }
  throw new Error(`D1_TYPE_ERROR: Type '${type}' not supported for value '${value}'`, {
    cause: new Error(`Type '${type}' not supported for value '${value}'`),
  });
}

export class D1PreparedStatement {
  #send;
  #sql;
  #params;

  constructor(send, sql, params) {
    this.#send = send;
    this.#sql = sql;
    this.#params = params;
  }

  // `{sql, params}` of a statement of this class, for a batch.
  static recorded(statement) {
    if (!(statement instanceof Object && #sql in statement)) {
      throw new TypeError('D1 batch() takes only statements made by prepare() of a D1 binding');
    }
    return { sql: statement.#sql, params: statement.#params };
  }

  bind(...values) {
    return new D1PreparedStatement(this.#send, this.#sql, values.map(d1Value));
  }

  #one(method, extra = {}) {
    return this.#send({ method, statements: [D1PreparedStatement.recorded(this)], ...extra });
  }

  async first(column) {
    return await this.#one('first', column === undefined ? {} : { column });
  }

  async all() {
    return await this.#one('all');
  }

  async run() {
    return await this.#one('run');
  }

  async raw(options) {
    return await this.#one('raw', options == null ? {} : { options: { columnNames: !!options.columnNames } });
  }
}

export class WorkerQueue {
  #producer;

  constructor(producer) {
    this.#producer = producer;
  }

  async send(body, options) {
    await this.#producer.send(body, options);
  }

  async sendBatch(messages, options) {
    await this.#producer.sendBatch(Array.from(messages), options);
  }
}

// An Analytics Engine dataset that keeps what it is written: Miniflare's own drops every point, so
// the host keeps them in memory, in order, for `/cdn-cgi/tickwork/metrics` (cli.mjs) and the tests.
// `writeDataPoint` returns nothing and never waits, as on Cloudflare.
export class AnalyticsEngineDataset {
  #points = [];

  constructor(dataset) {
    this.dataset = dataset;
  }

  writeDataPoint(point) {
    const part = (name) => Array.from((point instanceof Map ? point.get(name) : point?.[name]) ?? []);
    this.#points.push({ indexes: part('indexes'), blobs: part('blobs'), doubles: part('doubles') });
  }

  points() {
    return [...this.#points];
  }
}

// `ctx`: what `waitUntil` is given is awaited by the host once the handler has returned.
export class ExecutionContext {
  #pending = [];
  props = {};

  get [Symbol.toStringTag]() {
    return 'ExecutionContext';
  }

  waitUntil(promise) {
    this.#pending.push(Promise.resolve(promise));
  }

  passThroughOnException() {}

  // Everything handed to waitUntil, including what those promises add while they run.
  async settle() {
    const errors = [];
    for (let done = 0; done < this.#pending.length; done++) {
      try {
        await this.#pending[done];
      } catch (error) {
        errors.push(error);
      }
    }
    return errors;
  }
}

export class ScheduledController {
  constructor(cron, scheduledTime) {
    this.cron = cron;
    this.scheduledTime = scheduledTime;
  }

  noRetry() {}
}

// A message body as the consumer Worker sent it to Node (see platform.mjs): JSON as is, bytes
// and dates tagged.
const VIEWS = {
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, BigInt64Array, BigUint64Array, DataView,
};

export function decodeBody(encoded) {
  if (encoded && 'bytes' in encoded) {
    const { buffer } = new Uint8Array(Buffer.from(encoded.bytes, 'base64'));
    if (encoded.view === 'ArrayBuffer') return buffer;
    const View = VIEWS[encoded.view] ?? Uint8Array;
    return View === DataView ? new DataView(buffer) : new View(buffer, 0, buffer.byteLength / View.BYTES_PER_ELEMENT);
  }
  if (encoded && 'date' in encoded) return new Date(encoded.date);
  return encoded?.json ?? null;
}

// A queue batch as a consumer sees it. What the handler decides is collected for the real queue,
// with the runtime's precedence: on a message, the first of ack()/retry() wins; on the batch,
// the first of ackAll()/retryAll() wins; a message's own call wins over the batch's.
export class Message {
  #verdicts;

  constructor({ id, timestamp, body, attempts }, verdicts) {
    this.id = id;
    this.timestamp = new Date(timestamp);
    this.body = decodeBody(body);
    this.attempts = attempts;
    this.#verdicts = verdicts;
  }

  ack() {
    if (!this.#verdicts.has(this.id)) this.#verdicts.set(this.id, { ack: true });
  }

  retry(options) {
    if (!this.#verdicts.has(this.id)) {
      this.#verdicts.set(this.id, { retry: true, delaySeconds: options?.delaySeconds ?? null });
    }
  }
}

export class MessageBatch {
  #verdicts = new Map();
  #all = null;

  constructor(queue, messages) {
    this.queue = queue;
    this.messages = messages.map((message) => new Message(message, this.#verdicts));
  }

  ackAll() {
    this.#all ??= { ack: true };
  }

  retryAll(options) {
    this.#all ??= { retry: true, delaySeconds: options?.delaySeconds ?? null };
  }

  verdicts() {
    return { all: this.#all, each: Object.fromEntries(this.#verdicts) };
  }
}

// A Workflow binding (wrangler's `[[workflows]]`), named as the runtime names it (`WorkflowImpl`,
// which the SDK wraps to take and give Python values). Its instances run in Miniflare's Workflows,
// inside workerd, where the host's JS Worker holds the real binding: `send({binding, op, id,
// params})` posts each call there (platform.mjs), which answers its value or rethrows its error.
export class WorkflowImpl {
  #send;
  #binding;

  constructor(send, binding) {
    this.#send = send;
    this.#binding = binding;
  }

  async create(options) {
    const id = await this.#send({ binding: this.#binding, op: 'create', id: options?.id, params: options?.params });
    return new WorkflowInstance(this.#send, this.#binding, id);
  }

  async get(id) {
    await this.#send({ binding: this.#binding, op: 'status', id });  // refuses an id it has no instance of
    return new WorkflowInstance(this.#send, this.#binding, id);
  }
}

export class WorkflowInstance {
  #send;
  #binding;

  constructor(send, binding, id) {
    this.#send = send;
    this.#binding = binding;
    this.id = id;
  }

  async status() {
    const { __LOCAL_DEV_STEP_OUTPUTS, ...status } = await this.#send({ binding: this.#binding, op: 'status', id: this.id });
    return status;
  }

  async terminate() {
    await this.#send({ binding: this.#binding, op: 'terminate', id: this.id });
  }

  async pause() {
    await this.#send({ binding: this.#binding, op: 'pause', id: this.id });
  }

  async resume() {
    await this.#send({ binding: this.#binding, op: 'resume', id: this.id });
  }
}
