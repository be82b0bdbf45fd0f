// While `dev` runs, its workerd holds the local D1: another on the same file (`wrangler d1 execute
// --local`, a `tick` host) and dev's own meet SQLITE_BUSY. So dev says in this file of its state
// directory where it listens, and the operator's command sends its changes to COMMAND_ROUTE
// (tickwork_cli/local_d1.py's DevHostD1, with the file's token), `tick` its tick to the scheduled
// route; the console and the scheduled route already go through dev. The route is the host's
// alone (cli.mjs), never the Worker's: nothing of it is in the bundle.

import { timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const DEV_FILE = 'tickwork-dev.json';
export const COMMAND_ROUTE = '/cdn-cgi/tickwork/d1';
export const TOKEN_HEADER = 'x-tickwork-dev-token';

// Says in `dir` that dev listens at `url` with `token`; the path written. Made afresh (`wx`), so
// that only its user may read the token: a file left behind keeps its mode when written over, and
// a link put in its place would be followed.
export function writeDevFile(dir, record) {
  const file = path.join(dir, DEV_FILE);
  mkdirSync(dir, { recursive: true });
  rmSync(file, { force: true });
  writeFileSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'wx' });
  return file;
}

// Whether a request's token header is dev's token, compared in constant time.
export function tokenMatches(given, token) {
  const [a, b] = [Buffer.from(typeof given === 'string' ? given : ''), Buffer.from(token)];
  return a.length === b.length && timingSafeEqual(a, b);
}

// The `dev` running on the local D1 in `persistTo`, as its file says ({url, pid, token}), or null.
export function runningDev(persistTo) {
  let dev;
  try {
    dev = JSON.parse(readFileSync(path.join(persistTo, DEV_FILE), 'utf8'));
    process.kill(dev.pid, 0);
  } catch (error) {
    if (error.code !== 'EPERM') return null; // no file, or its process is gone
  }
  return dev;
}

// Whether something listens where `dev` says it does (a dev killed outright left its file).
export function listening(dev) {
  const { hostname, port } = new URL(dev.url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
