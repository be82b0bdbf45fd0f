#!/usr/bin/env node
// scripts/bench/console.py's D1: Miniflare's local D1 (workerd's SQLite, whose meta.rows_read counts
// rows as D1 bills them), its state in DIR, migrated. One JSON line on stdout once it is ready, then,
// for each line read on stdin (a batch: [{sql, params}]), one line: each statement's rows and rows
// read, or the error. It ends with stdin.
//
//   node scripts/bench/console_d1.mjs DIR

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

import { Platform } from '../host/platform.mjs';
import { wranglerToml } from './host_bench.mjs';

const [dir] = process.argv.slice(2);
writeFileSync(path.join(dir, 'wrangler.toml'), wranglerToml('tickwork-bench-console', ['DB']));
const platform = await Platform.start({ configPath: path.join(dir, 'wrangler.toml'), persistTo: path.join(dir, 'state') });
await platform.migrate();
const db = platform.env.DB;
console.log(JSON.stringify({ ready: true }));
for await (const line of createInterface({ input: process.stdin })) {
  let answer;
  try {
    const results = await db.batch(JSON.parse(line).map(({ sql, params }) => db.prepare(sql).bind(...params)));
    answer = { results: results.map((r) => ({ rows: r.results ?? [], rows_read: r.meta?.rows_read ?? 0 })) };
  } catch (error) {
    answer = { error: String(error?.message ?? error) };
  }
  console.log(JSON.stringify(answer));
}
await platform.dispose();
