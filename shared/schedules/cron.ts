import { Cron } from 'croner';
import { badRequest } from '../errors.ts';

// Cron expressions and time zones of scan schedules (docs/HOSTED-SCANS.md, Schedules): five fields (minute, hour,
// day of month, month, day of week), read as Vixie cron reads them (a day matches the day of month OR the day of
// week when both are restricted), at minutes of the schedule's IANA time zone. croner computes the times; the
// fields are also read here, to refuse what croner would accept beyond the five plain fields (seconds, `@daily`,
// `L`, `W`, `#`, `?`) and to write the EventBridge Scheduler expression of the same times.

interface Field {
  name: string;
  min: number;
  max: number;
  names?: string[];
}

const FIELDS: Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['', 'JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
  },
  // 7 is Sunday too, as in Vixie cron.
  { name: 'day of week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

/** One field's values, or why it is not valid. */
function expandField(text: string, field: Field): Set<number> | string {
  const values = new Set<number>();
  const number = (raw: string) => {
    if (field.names && /^[A-Za-z]{3}$/.test(raw)) {
      const named = field.names.indexOf(raw.toUpperCase());
      return named >= 0 ? named : undefined;
    }
    if (!/^\d{1,2}$/.test(raw)) return undefined;
    const n = Number(raw);
    return n >= field.min && n <= field.max ? n : undefined;
  };
  for (const item of text.split(',')) {
    const match = /^(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/(\d{1,2}))?$/.exec(item);
    if (!match) return `"${item}" is not a value, a range (a-b), * or a step (*/n, a-b/n)`;
    const [, range, stepText] = match;
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step < 1) return `the step of "${item}" must be at least 1`;
    let from = field.min;
    let to = field.max;
    if (range !== '*') {
      const [a, b] = range.split('-');
      const start = number(a);
      const end = b === undefined ? start : number(b);
      if (start === undefined || end === undefined)
        return `"${item}" is out of range (${field.min}-${field.max}${field.names ? ' or a name' : ''})`;
      if (end < start) return `the range "${range}" ends before it starts`;
      if (b === undefined && stepText !== undefined) return `a step needs * or a range before it, not "${item}"`;
      [from, to] = [start, end];
    }
    for (let n = from; n <= to; n += step) values.add(field.name === 'day of week' ? n % 7 : n);
  }
  return values;
}

/** A schedule's expression, read: its fields' values, and whether the two day fields are restricted. */
export interface ParsedCron {
  fields: Set<number>[];
  dayOfMonthRestricted: boolean;
  dayOfWeekRestricted: boolean;
}

/** The expression read, or a 400 naming `cron`. */
export function parseCron(cron: string): ParsedCron {
  const texts = cron.trim().split(/\s+/);
  if (texts.length !== 5)
    throw badRequest(
      `cron: must have 5 fields (minute hour day-of-month month day-of-week, e.g. "0 3 * * 1"), got ${texts.length}`,
    );
  const fields = texts.map((text, i) => {
    const values = expandField(text, FIELDS[i]);
    if (typeof values === 'string') throw badRequest(`cron: the ${FIELDS[i].name} field: ${values}`);
    return values;
  });
  return { fields, dayOfMonthRestricted: texts[2] !== '*', dayOfWeekRestricted: texts[4] !== '*' };
}

/** A 400 naming `timezone` unless it is an IANA time zone name (Europe/Paris, America/New_York, UTC). */
export function checkTimezone(timezone: string): void {
  let known = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(timezone);
  if (known) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: timezone });
    } catch {
      known = false;
    }
  }
  if (!known)
    throw badRequest(`timezone: "${timezone.slice(0, 64)}" is not an IANA time zone name (e.g. Europe/Paris, UTC)`);
}

const cronOf = (cron: string, timezone: string) => new Cron(cron, { timezone, mode: '5-part', paused: true });

/** The first time after `after` (ms) that the schedule is due, to the minute; undefined when it never is again. */
export function nextOccurrence(cron: string, timezone: string, after: number): number | undefined {
  return cronOf(cron, timezone).nextRun(new Date(after))?.getTime();
}

/** Whether `at` (ms) is a minute the schedule is due at. */
export function isOccurrence(cron: string, timezone: string, at: number): boolean {
  const minute = Math.floor(at / 60_000) * 60_000;
  return nextOccurrence(cron, timezone, minute - 1000) === minute;
}

/** Checks a schedule's expression and zone (400 naming the field) and that it is due at least once more. */
export function checkSchedule(cron: string, timezone: string, now = Date.now()): void {
  parseCron(cron);
  checkTimezone(timezone);
  if (nextOccurrence(cron, timezone, now) === undefined)
    throw badRequest(`cron: "${cron}" is never due (a day that does not exist in its month?)`);
}

/** Consecutive values as `a-b`, the others alone: `0,5,10-12`. */
function compact(values: Set<number>, label: (n: number) => string = String): string {
  const sorted = [...values].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(
      j > i + 1
        ? `${label(sorted[i])}-${label(sorted[j])}`
        : sorted
            .slice(i, j + 1)
            .map(label)
            .join(','),
    );
    i = j + 1;
  }
  return parts.join(',');
}

const full = (values: Set<number>, field: Field) =>
  values.size === (field.name === 'day of week' ? 7 : field.max - field.min + 1);

/**
 * The EventBridge Scheduler expression of the schedule's times (`cron(minutes hours day-of-month month day-of-week
 * year)`, evaluated in the schedule's time zone). EventBridge takes one of the two day fields only: with both
 * restricted, it is due every day and the function it invokes keeps only the expression's own days (isOccurrence).
 */
export function eventBridgeExpression(cron: string): string {
  const { fields, dayOfMonthRestricted, dayOfWeekRestricted } = parseCron(cron);
  const [minutes, hours, days, months, weekdays] = fields;
  const field = (values: Set<number>, i: number, label?: (n: number) => string) =>
    full(values, FIELDS[i]) ? '*' : compact(values, label);
  let dayOfMonth = '*';
  let dayOfWeek = '?';
  if (dayOfMonthRestricted && !dayOfWeekRestricted) dayOfMonth = field(days, 2);
  if (dayOfWeekRestricted && !dayOfMonthRestricted) {
    dayOfMonth = '?';
    dayOfWeek = [...weekdays]
      .sort((a, b) => a - b)
      .map((n) => FIELDS[4].names![n])
      .join(',');
  }
  return `cron(${field(minutes, 0)} ${field(hours, 1)} ${dayOfMonth} ${field(months, 3)} ${dayOfWeek} *)`;
}
