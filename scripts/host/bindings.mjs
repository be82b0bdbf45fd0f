// The JS objects a Python Worker meets in the Workers runtime, as the host builds them.
//
// The SDK (`workers-runtime-sdk`) recognises a binding by its JS constructor's name
// (`D1Database`, `WorkerQueue`, ...) and only then converts arguments (`None` to null) and
// results (objects to dicts). Miniflare's own proxies have no such names, so each binding is
// wrapped here in a small class named as the runtime names it, forwarding to Miniflare.

export class D1Database {
  #db;

  constructor(db) {
    this.#db = db;
  }

  prepare(sql) {
    return new D1PreparedStatement(this.#db.prepare(sql));
  }

  async batch(statements) {
    return await this.#db.batch(Array.from(statements, (statement) => statement.unwrap()));
  }

  async exec(sql) {
    return await this.#db.exec(sql);
  }
}

export class D1PreparedStatement {
  #statement;

  constructor(statement) {
    this.#statement = statement;
  }

  unwrap() {
    return this.#statement;
  }

  bind(...values) {
    return new D1PreparedStatement(this.#statement.bind(...values));
  }

  async first(column) {
    return column === undefined ? await this.#statement.first() : await this.#statement.first(column);
  }

  async all() {
    return await this.#statement.all();
  }

  async run() {
    return await this.#statement.run();
  }

  async raw(options) {
    return await this.#statement.raw(options);
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
