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

// A queue batch as a consumer sees it; ack/retry decisions are collected for the real queue.
export class Message {
  #verdicts;

  constructor({ id, timestamp, body, attempts }, verdicts) {
    this.id = id;
    this.timestamp = new Date(timestamp);
    this.body = body;
    this.attempts = attempts;
    this.#verdicts = verdicts;
  }

  ack() {
    this.#verdicts.set(this.id, { ack: true });
  }

  retry(options) {
    this.#verdicts.set(this.id, { retry: true, delaySeconds: options?.delaySeconds });
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
    this.#all = { ack: true };
  }

  retryAll(options) {
    this.#all = { retry: true, delaySeconds: options?.delaySeconds };
  }

  verdicts() {
    return { all: this.#all, each: Object.fromEntries(this.#verdicts) };
  }
}
