// When `dev` ticks on its own: at each whole minute, one event per cron that matches it, as
// Cloudflare's cron triggers do. While the app has queues bound, the Worker's invocation itself
// ticks again at each 10-second mark of its minute (tickwork/invocation.py).
//
// Pure functions of the clock, so the cadence is tested without waiting for it (see
// tests/e2e/test_the_dev_timer.py); `startTimer` in cli.mjs only sets the timeouts.

import { parseCron } from './cron.mjs';

export const MINUTE = 60_000;

// The first mark of the step after `now`, and never the mark already ticked (`previous`) again:
// a timeout may fire a millisecond early, and then `now` is still before the mark it was for.
// Marks passed while the process was busy are skipped, as missed cron triggers are.
export function nextTickAt(now, step, previous = -Infinity) {
  return Math.max(Math.floor(now / step) * step + step, previous + step);
}

// The crons to deliver at a whole minute: those that match it.
export function cronPlan(crons) {
  const matchers = crons.map((cron) => [cron, parseCron(cron)]);
  return (time) => matchers.filter(([, matches]) => matches(time)).map(([cron]) => cron);
}

// The events the timer delivers between `start` and `end` (epoch ms) when the timeout for each
// mark fires at `fireAt(mark)` on the clock (early, late or on time): [{time, crons}] in order,
// marks with no cron left out. `startTimer` in cli.mjs takes the same steps with real timeouts.
export function simulateTimer({ crons, start, end, step = MINUTE, fireAt = (mark) => mark }) {
  const plan = cronPlan(crons);
  const events = [];
  for (let next = nextTickAt(start, step); next <= end; ) {
    const now = fireAt(next);
    const due = plan(next);
    if (due.length) events.push({ time: next, crons: due });
    next = nextTickAt(now, step, next);
  }
  return events;
}
