#!/usr/bin/env node
// tickwork's local Workers host.
//
//   node scripts/host/cli.mjs dev  [--port 8787] [--json] [--no-timer]
//   node scripts/host/cli.mjs tick [--time 2026-01-05T09:15Z|<epoch ms>|now] [--cron "* * * * *"] [--json]
//   common: [--config wrangler.toml] [--bundle build/worker] [--persist-to .wrangler/state]
//
// `dev` ticks at each whole minute (each 10 s while queues are bound), serves the Worker's fetch
// and `GET /cdn-cgi/handler/scheduled?cron=...&time=<ms>`; `tick` runs one tick and exits.
// The bundle is what `wrangler deploy --dry-run --outdir` wrote (`make bundle`).

import http from 'node:http';
import { parseArgs } from 'node:util';

import { describeRun, Host, iso } from './host.mjs';
import { cronPlan, nextTickAt, tickStep } from './timer.mjs';

const USAGE = `usage: cli.mjs dev|tick [--time T] [--cron C] [--json] [--port N] [--no-timer]
       [--config wrangler.toml] [--bundle build/worker] [--persist-to .wrangler/state]`;

export function parseTime(text) {
  if (text === undefined || text === 'now') return Math.floor(Date.now() / 60_000) * 60_000;
  if (/^\d+$/.test(text)) return Number(text);
  let normal = text.trim().replace(' ', 'T');
  if (!/(Z|[+-]\d\d:?\d\d)$/i.test(normal)) normal += 'Z';
  const ms = Date.parse(normal);
  if (Number.isNaN(ms)) throw new Error(`--time '${text}' is neither epoch ms nor an ISO UTC time`);
  return ms;
}

// Where everything is printed. Human: run lines and the Worker's output on stdout, its stderr on
// stderr. JSON: stdout holds only one JSON object per run or skip; the rest goes to stderr.
class Printer {
  constructor(json) {
    this.json = json;
  }

  run(run) {
    if (this.json) process.stdout.write(`${JSON.stringify(run)}\n`);
    else process.stdout.write(`[${run.tick.slice(11, 19)}] ${describeRun(run)}\n`);
  }

  worker(stream, line) {
    // The Worker describes each run itself ("tickwork: ..."); the host's line from the run
    // record replaces it, so that each run is one line.
    if (line.startsWith('tickwork: ')) return;
    (stream === 'stderr' || this.json ? process.stderr : process.stdout).write(`${line}\n`);
  }

  note(text) {
    (this.json ? process.stderr : process.stdout).write(`${text}\n`);
  }

  error(text) {
    process.stderr.write(`${text}\n`);
  }
}

async function tickOnce(host, printer, cron, time) {
  try {
    const runs = await host.scheduled(cron, time);
    for (const run of runs) printer.run(run);
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

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function serve(host, printer, { port, crons, track }) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, `http://${req.headers.host ?? 'localhost'}`);
    try {
      if (url.pathname === '/cdn-cgi/handler/scheduled') {
        const cron = url.searchParams.get('cron') ?? crons[0] ?? '* * * * *';
        const time = parseTime(url.searchParams.get('time') ?? undefined);
        const { value, lines } = await track(host.capturing(() => tickOnce(host, printer, cron, time)));
        if ((req.headers.accept ?? '').includes('application/json')) {
          return json(res, value.ok ? 200 : 500, { ...value, cron, time, lines });
        }
        res.writeHead(value.ok ? 200 : 500, { 'content-type': 'text/plain' });
        return res.end(value.ok ? 'Ran scheduled event' : `Scheduled event failed:\n${value.error}`);
      }
      if (url.pathname === '/cdn-cgi/tickwork/reset' && req.method === 'POST') {
        return json(res, 200, { applied: await host.reset() });
      }
      if (url.pathname === '/cdn-cgi/tickwork/modules') {
        return json(res, 200, {
          mounted: host.worker.files,
          loaded: host.worker.loadedModules(),
          import_ms: host.worker.importMs,
        });
      }
      const body = ['GET', 'HEAD'].includes(req.method) ? undefined : await readBody(req);
      const request = new Request(url, { method: req.method, headers: req.headers, body });
      await sendResponse(res, await track(host.fetch(request)));
    } catch (error) {
      printer.error(`${req.method} ${url.pathname} failed:\n${error.message}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`${error.message}\n`);
    }
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
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
      config: { type: 'string', default: 'wrangler.toml' },
      bundle: { type: 'string', default: 'build/worker' },
      'persist-to': { type: 'string', default: '.wrangler/state' },
      port: { type: 'string', default: '8787' },
      json: { type: 'boolean', default: false },
      'no-timer': { type: 'boolean', default: false },
      time: { type: 'string' },
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
  const started = Date.now();
  const host = await Host.start({
    configPath: values.config,
    bundleDir: values.bundle,
    persistTo: values['persist-to'],
    output: (stream, line) => printer.worker(stream, line),
  });
  const crons = host.platform.config.triggers?.crons ?? [];

  if (command === 'tick') {
    const time = parseTime(values.time);
    const result = await tickOnce(host, printer, values.cron ?? crons[0] ?? '* * * * *', time);
    await host.dispose();
    return result.ok ? 0 : 1;
  }

  const inflight = new Set();
  const track = (promise) => {
    inflight.add(promise);
    promise.finally(() => inflight.delete(promise)).catch(() => {});
    return promise;
  };
  const server = await serve(host, printer, { port: Number(values.port), crons, track });
  const { port } = server.address();
  const step = tickStep(host.platform.hasQueues());
  const stopTimer = values['no-timer'] ? () => {} : startTimer(host, printer, { crons, step, track });
  const handlers = host.worker.handlerNames().join(', ') || 'none';
  printer.note(
    `tickwork host: ${values.bundle} on Pyodide ${host.worker.pyodide.version}, ` +
      `entry imported in ${Math.round(host.worker.importMs)} ms, ready in ${Date.now() - started} ms`,
  );
  printer.note(`tickwork host: handlers ${handlers}; D1 state in ${values['persist-to']}`);
  printer.note(`tickwork host: listening on http://127.0.0.1:${port}`);
  if (values['no-timer']) printer.note('tickwork host: no timer; tick with GET /cdn-cgi/handler/scheduled?time=<ms>');
  else if (!crons.length) printer.note('tickwork host: wrangler.toml has no [triggers] crons; tick by hand');
  else printer.note(`tickwork host: ticking every ${step / 1000} s for ${crons.join(', ')}; Ctrl-C stops`);

  return await new Promise((resolve) => {
    let stopping = false;
    const stop = async () => {
      if (stopping) process.exit(130);
      stopping = true;
      printer.note('tickwork host: stopping (Ctrl-C again to quit at once)');
      stopTimer();
      server.close();
      server.closeAllConnections?.();
      await Promise.allSettled([...inflight]);
      await host.dispose();
      resolve(0);
    };
    // wrangler and Miniflare install exit-at-once listeners on import; stopping is ours.
    for (const signal of ['SIGINT', 'SIGTERM']) {
      process.removeAllListeners(signal);
      process.on(signal, stop);
    }
  });
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`tickwork host: ${error.message ?? error}`);
    process.exit(1);
  },
);
