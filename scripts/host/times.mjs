// The time of a tick by hand (`make tick TIME=`, `tick --time`, `?time=` on the scheduled
// routes): epoch milliseconds, an ISO UTC time, or `now`.
//
// A tick moves every schedule's due time past it for good (the grid is kept in D1), so a number
// that is not plausibly milliseconds is refused, and a tick more than a day from the host's clock
// is made only when asked for (`--far`, `far=1`). Pure functions of `now`, tested in
// tests/e2e/test_ticks_by_hand.py.

import { MINUTE } from './timer.mjs';

const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// Epoch milliseconds from 1973-03-03 to 2286-11-20: below, a number is seconds (1e11 seconds is
// the year 5138); above, microseconds or a slip of the keyboard.
const LEAST_MS = 1e11;
const MOST_MS = 1e13;

export function iso(ms) {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

function span(ms) {
  return ms < 2 * DAY ? `${Math.round(ms / HOUR)} hours` : `${Math.round(ms / DAY)} days`;
}

function epochMs(text) {
  const number = Number(text);
  if (number >= LEAST_MS && number < MOST_MS) return number;
  const [unit, ms] = number < LEAST_MS ? ['seconds', number * 1000] : ['microseconds', number / 1000];
  const meant = ms >= LEAST_MS && ms < MOST_MS ? `as ${unit} it is ${iso(ms)}: write ${ms}` : 'write 13 digits';
  throw new Error(
    `time ${text} is not epoch milliseconds (${meant}, or an ISO UTC time such as 2026-01-05T09:15Z)`,
  );
}

// An ISO time: a date, and a time of day to the minute or finer, in UTC unless an offset is
// given. Nothing else goes to Date.parse, which reads `-5` as the year 2001 and `May 5` too.
const ISO = /^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d{1,3})?)?)?(Z|[+-]\d\d:?\d\d)?$/i;

function parseTime(text, now) {
  if (text === undefined || text === 'now') return Math.floor(now / MINUTE) * MINUTE;
  if (/^\d+$/.test(text)) return epochMs(text);
  let normal = text.trim().replace(' ', 'T');
  if (!/(Z|[+-]\d\d:?\d\d)$/i.test(normal)) normal += 'Z';
  const ms = ISO.test(text.trim()) ? Date.parse(normal) : NaN;
  if (Number.isNaN(ms)) throw new Error(`time '${text}' is neither epoch ms nor an ISO UTC time such as 2026-01-05T09:15Z`);
  return ms;
}

// The tick's time (epoch ms) for `text`, given the host's clock `now`. A time more than a day
// before or after `now` is refused unless `far`.
export function tickTime(text, { now, far = false }) {
  const time = parseTime(text, now);
  const away = Math.abs(time - now);
  if (away > DAY && !far) {
    throw new Error(
      `a tick at ${iso(time)} is ${span(away)} ${time > now ? 'after' : 'before'} now (${iso(now - (now % 1000))}) ` +
        `and the due times it leaves in D1 are kept for good. To tick there anyway add --far ` +
        `(tickwork tick TIME --far; far=1 on /cdn-cgi/handler/scheduled); tickwork dev --fresh ` +
        `starts again from an empty local D1`,
    );
  }
  return time;
}
