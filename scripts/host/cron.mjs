// Cron triggers as Cloudflare reads them: five fields, UTC, minute granularity.

const NAMES = {
  month: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
  weekday: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
};
const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: NAMES.month, offset: 1 },
  { name: 'weekday', min: 0, max: 7, names: NAMES.weekday, offset: 0 },
];

function value(text, field) {
  const index = field.names?.indexOf(text.toUpperCase()) ?? -1;
  const number = index >= 0 ? index + field.offset : Number(text);
  if (!Number.isInteger(number) || number < field.min || number > field.max) {
    throw new Error(`cron ${field.name} '${text}' is not in ${field.min}-${field.max}`);
  }
  return number;
}

function parseField(text, field) {
  const allowed = new Set();
  for (const part of text.split(',')) {
    const [range, stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new Error(`cron step '${stepText}' is not a positive number`);
    let [low, high] = [field.min, field.max];
    if (range !== '*' && range !== '?') {
      const [first, last] = range.split('-');
      low = value(first, field);
      high = last === undefined ? (stepText === undefined ? low : field.max) : value(last, field);
    }
    for (let n = low; n <= high; n += step) allowed.add(field.name === 'weekday' && n === 7 ? 0 : n);
  }
  return { allowed, any: text === '*' || text === '?' };
}

export function parseCron(expression) {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`cron '${expression}' needs five fields`);
  const [minute, hour, day, month, weekday] = parts.map((text, i) => parseField(text, FIELDS[i]));
  return (ms) => {
    const at = new Date(ms);
    const dayMatches = day.allowed.has(at.getUTCDate());
    const weekdayMatches = weekday.allowed.has(at.getUTCDay());
    // As in cron: when both day fields are restricted, either one matching is enough.
    const days = day.any || weekday.any ? dayMatches && weekdayMatches : dayMatches || weekdayMatches;
    return (
      minute.allowed.has(at.getUTCMinutes()) &&
      hour.allowed.has(at.getUTCHours()) &&
      month.allowed.has(at.getUTCMonth() + 1) &&
      days
    );
  };
}
