#!/usr/bin/env node
// tickwork's local Workers host.
//
//   node scripts/host/cli.mjs dev  [--port 8787] [--json] [--no-timer] [--fresh]
//   node scripts/host/cli.mjs tick [--time 2026-01-05T09:15Z|<epoch ms>|now] [--far] [--cron "* * * * *"] [--json]
//   common: [--config wrangler.json|wrangler.jsonc|wrangler.toml, the first there, as wrangler looks] [--bundle build/worker] [--persist-to .wrangler/state]
//
// `dev` ticks at each whole minute (the Worker ticks again at the 10-second marks while queues are bound), serves the Worker's fetch
// and `GET /cdn-cgi/handler/scheduled?cron=...&time=<ms>` (or `/__scheduled`, as wrangler does);
// `tick` runs one tick and exits. A tick by hand more than a day from now needs --far (`far=1`).
// `--fresh` empties the local D1 first. The bundle is what `wrangler deploy --dry-run --outdir`
// wrote (`make bundle`).

import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';

import { COMMAND_ROUTE, DEV_FILE, listening, runningDev, TOKEN_HEADER, tokenMatches, writeDevFile } from './dev_file.mjs';
import { describeRun, Host, jsonLine } from './host.mjs';
import { iso, tickTime } from './times.mjs';
import { cronPlan, MINUTE, nextTickAt } from './timer.mjs';

const USAGE = `usage: cli.mjs dev|tick [--time T] [--far] [--cron C] [--json] [--port N] [--no-timer] [--fresh]
       [--config wrangler.jsonc|wrangler.toml] [--bundle build/worker] [--persist-to .wrangler/state]`;
// wrangler's own order of its configuration files, where --config names none.
const CONFIGS = ['wrangler.json', 'wrangler.jsonc', 'wrangler.toml'];
const SCHEDULED = ['/cdn-cgi/handler/scheduled', '/__scheduled'];
// Where the host serves tickwork's console with no login: among its own endpoints, behind their
// checks, and never the app's path (Cloudflare keeps /cdn-cgi; the app's own prefix stays the
// Worker's, behind its access checks).
const CONSOLE = '/cdn-cgi/tickwork/console';
// How long Ctrl-C waits for invocations to end, and then for Miniflare to go, before exiting.
const STOP_GRACE_MS = 700;

// Where everything is printed. Human: run lines and the Worker's output on stdout, its stderr on
// stderr. JSON: stdout holds only one JSON object per run or skip; the rest goes to stderr.
class Printer {
  constructor(json) {
    this.json = json;
    this.stopping = false;
  }

  // Once Ctrl-C stops the host, what the invocations cut short print (D1 calls failing as
  // Miniflare goes) is left out: only the host's own notes are printed.
  stop() {
    this.stopping = true;
  }

  run(run) {
    if (this.stopping) return;
    if (this.json) process.stdout.write(`${jsonLine(run)}\n`);
    else process.stdout.write(`[${run.tick.slice(11, 19)}] ${describeRun(run)}\n`);
  }

  worker(stream, line) {
    // The Worker describes each run itself (a JSON line of event `run` or `skip`, src/tickwork/logs.py);
    // the host's line from the run record replaces it, so that each run is one line. Its other
    // JSON lines are said in words here, as their message (and traceback), unless --json.
    const logged = loggedLine(line);
    if (line.startsWith('tickwork: ') || this.stopping || ['run', 'skip'].includes(logged?.event)) return;
    const text = logged && !this.json ? [logged.message, logged.stack].filter(Boolean).join('\n') : line;
    (stream === 'stderr' || this.json ? process.stderr : process.stdout).write(`${text}\n`);
  }

  note(text) {
    (this.json ? process.stderr : process.stdout).write(`${text}\n`);
  }

  error(text) {
    if (!this.stopping) process.stderr.write(`${text}\n`);
  }
}

// A line tickwork logged (one JSON object with its `level`, `event` and `message`), or null.
function loggedLine(line) {
  if (!line.startsWith('{"level": ')) return null;
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

async function tickOnce(host, printer, cron, time) {
  try {
    const runs = await host.scheduled(cron, time, (run) => printer.run(run));
    if (!runs.length && !printer.json) printer.note(`[${iso(time).slice(11, 19)}] tick ${iso(time)}: nothing due`);
    return { ok: true, runs };
  } catch (error) {
    printer.error(`tick ${iso(time)} (${cron}) failed:\n${error.message}`);
    const runs = await host.runsOfTick(time).catch(() => []);
    for (const run of runs) printer.run(run);
    return { ok: false, runs, error: error.message };
  }
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

async function sendResponse(res, response) {
  const headers = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  res.writeHead(response.status, headers);
  res.end(Buffer.from(await response.arrayBuffer()));
}

async function workerRequest(req) {
  const body = ['GET', 'HEAD'].includes(req.method) ? undefined : await readBody(req);
  return new Request(new URL(req.url, `http://${req.headers.host ?? 'localhost'}`), {
    method: req.method,
    headers: req.headers,
    body,
  });
}

// Whether `pathname` is under `base`, a path without a trailing slash.
function inside(pathname, base) {
  return pathname === base || pathname.startsWith(`${base}/`);
}

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

// The host's own endpoints (/cdn-cgi/..., /__scheduled) reset and tick the local D1, so they
// answer only this machine's own pages: a `Host` other than the host's loopback address is a
// DNS-rebinding page, an `Origin` other than its own (or a browser's `Sec-Fetch-Site` saying so)
// is another site. Why a request is refused, or null.
function foreignRequest(headers, port) {
  const own = [`127.0.0.1:${port}`, `localhost:${port}`];
  const host = (headers.host ?? '').toLowerCase();
  const origin = headers.origin?.toLowerCase();
  const site = headers['sec-fetch-site'];
  if (!own.includes(host)) return `its Host '${headers.host ?? ''}' is not ${own.join(' or ')}`;
  if (origin !== undefined && !own.some((address) => origin === `http://${address}`)) {
    return `its Origin '${headers.origin}' is not this host's own`;
  }
  if (site !== undefined && !['same-origin', 'none'].includes(site)) return `it comes from another site (${site})`;
  return null;
}

function plain(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

// Listens before the Worker is loaded, so that a port in use is said at once; requests wait for
// `started` ({host, crons, withConsole}).
function serve(started, printer, { port, track, token }) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    try {
      const own = SCHEDULED.includes(url.pathname) || url.pathname.startsWith('/cdn-cgi/');
      const foreign = own && foreignRequest(req.headers, server.address().port);
      if (foreign) {
        return plain(res, 403, `tickwork host: refused ${req.method} ${url.pathname}: ${foreign}. ` +
          `Its own endpoints answer only requests from this machine, e.g. curl http://127.0.0.1:${server.address().port}${url.pathname}\n`);
      }
      const { host, crons, withConsole } = await started;
      if (withConsole && inside(url.pathname, CONSOLE)) {
        return await sendResponse(res, await track(host.console(await workerRequest(req), CONSOLE)));
      }
      const wantsJson = (req.headers.accept ?? '').includes('application/json');
      if (SCHEDULED.includes(url.pathname)) {
        const cron = url.searchParams.get('cron') ?? crons[0] ?? '* * * * *';
        let time;
        try {
          time = tickTime(url.searchParams.get('time') ?? undefined, {
            now: Date.now(),
            far: url.searchParams.get('far') === '1',
          });
        } catch (error) {
          return wantsJson ? json(res, 400, { ok: false, error: error.message }) : plain(res, 400, `${error.message}\n`);
        }
        const { value, lines } = await track(host.capturing(() => tickOnce(host, printer, cron, time)));
        if (wantsJson) return json(res, value.ok ? 200 : 500, { ...value, cron, time, lines });
        return plain(res, value.ok ? 200 : 500, value.ok ? 'Ran scheduled event' : `Scheduled event failed:\n${value.error}`);
      }
      if (url.pathname === COMMAND_ROUTE && req.method === 'POST') {
        if (!tokenMatches(req.headers[TOKEN_HEADER], token)) return json(res, 403, { error: `the token of ${DEV_FILE} is needed` });
        const { binding, statements } = JSON.parse(await readBody(req));
        try {
          return json(res, 200, { results: await track(host.batchOfTheCommand(binding, statements)) });
        } catch (error) {
          return json(res, 500, { error: String(error.message ?? error) });
        }
      }
      if (url.pathname === '/cdn-cgi/tickwork/reset' && req.method === 'POST') {
        return json(res, 200, { applied: await host.reset() });
      }
      if (url.pathname === '/cdn-cgi/tickwork/metrics') {
        const datasets = host.platform.datasets;
        return json(res, 200, Object.fromEntries(Object.entries(datasets).map(([b, d]) => [b, d.points()])));
      }
      if (url.pathname === '/cdn-cgi/tickwork/modules') {
        return json(res, 200, {
          mounted: host.worker.files,
          loaded: host.worker.loadedModules(),
          import_ms: host.worker.importMs,
        });
      }
      await sendResponse(res, await track(host.fetch(await workerRequest(req))));
    } catch (error) {
      printer.error(`${req.method} ${url.pathname} failed:\n${error.message}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`${error.message}\n`);
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error) => {
      if (error.code !== 'EADDRINUSE') return reject(error);
      reject(new Error(`port ${port} is in use (another tickwork dev?); pick another: tickwork dev --port ${port + 1}`));
    });
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

// `tick` beside a running `dev`: the tick is dev's scheduled route's, on the bundle dev started
// with. Null where nothing listens there after all (a dev killed without removing its file).
async function tickThroughDev(dev, printer, cron, time) {
  const query = new URLSearchParams({ time: String(time), far: '1', ...(cron ? { cron } : {}) });
  let answer;
  try {
    const response = await fetch(`${dev.url}${SCHEDULED[0]}?${query}`, { headers: { accept: 'application/json' } });
    answer = await response.json();
  } catch (error) {
    if (error.cause?.code === 'ECONNREFUSED') return null;
    throw error;
  }
  process.stderr.write(`tickwork host: tickwork dev runs on this local D1 (${dev.url}): ticked through it, ` +
    `on the bundle it started with\n`);
  for (const { stream, line } of answer.lines ?? []) printer.worker(stream, line);
  for (const run of answer.runs ?? []) printer.run(run);
  if (!answer.ok) printer.error(`tick ${iso(time)} (${answer.cron}) failed:\n${answer.error}`);
  return answer.ok ? 0 : 1;
}

// The timer of `dev`: the marks and crons of timer.mjs, delivered by real timeouts.
function startTimer(host, printer, { crons, step, track }) {
  const plan = cronPlan(crons);
  let timer;
  const schedule = (previous) => {
    const next = nextTickAt(Date.now(), step, previous);
    timer = setTimeout(() => {
      schedule(next);
      for (const cron of plan(next)) track(tickOnce(host, printer, cron, next));
    }, next - Date.now());
  };
  schedule();
  return () => clearTimeout(timer);
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      config: { type: 'string', default: CONFIGS.find((name) => existsSync(name)) ?? 'wrangler.toml' },
      bundle: { type: 'string', default: 'build/worker' },
      'persist-to': { type: 'string', default: '.wrangler/state' },
      port: { type: 'string', default: '8787' },
      json: { type: 'boolean', default: false },
      'no-timer': { type: 'boolean', default: false },
      fresh: { type: 'boolean', default: false },
      time: { type: 'string' },
      far: { type: 'boolean', default: false },
      cron: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const command = positionals[0];
  if (values.help || !['dev', 'tick'].includes(command)) {
    console.error(USAGE);
    return values.help ? 0 : 2;
  }
  const printer = new Printer(values.json);
  const time = command === 'tick' ? tickTime(values.time, { now: Date.now(), far: values.far }) : undefined;
  const dev = runningDev(values['persist-to']);
  if (dev && command === 'tick') {
    const ticked = await tickThroughDev(dev, printer, values.cron, time);
    if (ticked !== null) return ticked;
  }
  // A second dev's workerd would meet the first's lock, and its file hide the first's.
  if (dev && command === 'dev' && (await listening(dev))) {
    throw new Error(`tickwork dev already runs on the local D1 in ${values['persist-to']} (${dev.url}, pid ${dev.pid}): ` +
      `a second would meet its lock (SQLITE_BUSY); stop it, or give this one another --persist-to`);
  }
  const token = randomUUID();
  const inflight = new Set();
  let host;
  let stopTimer = () => {};
  let server;
  // Ctrl-C: within about a second and a half. An invocation still running (a run, or the ticks at
  // the 10-second marks of its minute) is cut short as a Worker stopped mid-run is: a run's lease
  // lapses and a later tick records it `lease_expired`.
  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(130);
    stopping = true;
    printer.note('tickwork host: stopping (Ctrl-C again to quit at once)');
    printer.stop();
    stopTimer();
    server?.close();
    server?.closeAllConnections?.();
    const ended = await within(Promise.allSettled([...inflight]), STOP_GRACE_MS);
    if (!ended) {
      printer.note('tickwork host: cut short what was still running, as on a stopped Worker: a run cut short ' +
        'keeps its lease until it lapses on the clock, whatever time you tick at, and a later tick records it ' +
        'failed `lease_expired`');
    }
    if (host) await within(host.dispose(), STOP_GRACE_MS);
    process.exit(command === 'dev' ? 0 : 130);
  };
  // wrangler and Miniflare install exit-at-once listeners on import; stopping is ours.
  const listen = () => {
    for (const signal of ['SIGINT', 'SIGTERM']) {
      process.removeAllListeners(signal);
      process.on(signal, stop);
    }
  };
  listen();
  const track = (promise) => {
    inflight.add(promise);
    promise.finally(() => inflight.delete(promise)).catch(() => {});
    return promise;
  };
  let ready;
  const started = new Promise((resolve) => (ready = resolve));
  server = command === 'dev' ? await serve(started, printer, { port: Number(values.port), track, token }) : undefined;

  const startedAt = Date.now();
  host = await Host.start({
    configPath: values.config,
    bundleDir: values.bundle,
    persistTo: values['persist-to'],
    output: (stream, line) => printer.worker(stream, line),
  });
  if (values.fresh) {
    const applied = await host.reset();
    printer.note(`tickwork host: --fresh: emptied the local D1 in ${values['persist-to']}, then applied ${applied.join(', ')}`);
  }
  listen();
  const crons = host.platform.config.triggers?.crons ?? [];
  const withConsole = host.worker.hasConsole();
  ready({ host, crons, withConsole });

  if (command === 'tick') {
    const result = await track(tickOnce(host, printer, values.cron ?? crons[0] ?? '* * * * *', time));
    await host.dispose();
    return result.ok ? 0 : 1;
  }

  const { port } = server.address();
  const devFile = writeDevFile(values['persist-to'], { url: `http://127.0.0.1:${port}`, pid: process.pid, token });
  process.on('exit', () => rmSync(devFile, { force: true }));
  const step = MINUTE;
  if (!values['no-timer']) stopTimer = startTimer(host, printer, { crons, step, track });
  const handlers = host.worker.handlerNames().join(', ') || 'none';
  printer.note(
    `tickwork host: ${values.bundle} on Pyodide ${host.worker.pyodide.version}, ` +
      `entry imported in ${Math.round(host.worker.importMs)} ms, ready in ${Date.now() - startedAt} ms`,
  );
  printer.note(`tickwork host: handlers ${handlers}; D1 state in ${values['persist-to']}`);
  printer.note(`tickwork host: listening on http://127.0.0.1:${port}`);
  if (withConsole) printer.note(`tickwork host: console: http://127.0.0.1:${port}${CONSOLE} (no login: this machine's pages only)`);
  if (values['no-timer']) printer.note('tickwork host: no timer; tick with GET /cdn-cgi/handler/scheduled?time=<ms>');
  else if (!crons.length) printer.note(`tickwork host: ${values.config} has no [triggers] crons; tick by hand`);
  else printer.note(`tickwork host: ticking every ${step / 1000} s for ${crons.join(', ')}; Ctrl-C stops`);

  return await new Promise(() => {}); // until Ctrl-C
}

// Whether `promise` settled within `ms`.
function within(promise, ms) {
  let timer;
  return Promise.race([
    Promise.resolve(promise).then(() => true, () => true),
    new Promise((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]).finally(() => clearTimeout(timer));
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`tickwork host: ${error.message ?? error}`);
    process.exit(1);
  },
);
