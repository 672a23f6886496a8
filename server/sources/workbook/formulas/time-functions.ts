/**
 * TIME, HOUR, MINUTE, SECOND, EDATE and YEARFRAC as Excel computes them. fast-formula-parser's TIME answered past a day
 * (`TIME(25,70,0)` was 1.09, Excel's is the time of day 02:10, 0.09); its HOUR, MINUTE and SECOND cut the
 * fraction of a second off where Excel rounds to the nearest second (SECOND of 12:00:00.864 is 1); its EDATE went
 * past the end of a shorter month (`EDATE("2024-01-31",1)` was March 2nd, Excel's is February 29th).
 */
import { dayOf, isFormulaError, LAST_SERIAL, numberOf, wholeOf } from './number-argument.ts';
import { formulaLibrary } from './parser.ts';

interface Param {
  value: unknown;
  omitted?: boolean;
}

const SECONDS_PER_DAY = 86_400;
const MS_PER_DAY = SECONDS_PER_DAY * 1000;
/** Serial 0 of Excel's 1900 system, from 1900-03-01 (serial 61) on; before it, one day less (1900-02-29). */
const DAY_ZERO = Date.UTC(1899, 11, 30);
const PLAIN_FROM = 61;

const errors = () => formulaLibrary().FormulaError;

/** The second of the day a serial's time shows, rounded to the nearest second (0 to 86,399); negative #NUM!. */
function secondOfDay(param: Param): number | ReturnType<typeof numberOf> {
  const serial = numberOf(param.value);
  if (isFormulaError(serial)) return serial;
  if (serial < 0) return errors().NUM;
  // The last half second of a day stays in it (23:59:59), as LibreOffice keeps it, rather than turning to 0:00.
  return Math.min(Math.round((serial - Math.floor(serial)) * SECONDS_PER_DAY), SECONDS_PER_DAY - 1);
}

function partOfDay(part: (second: number) => number) {
  return (param: Param): unknown => {
    const second = secondOfDay(param);
    return isFormulaError(second) ? second : part(second);
  };
}

/** The calendar date of a whole serial. */
function dateOfSerial(serial: number): Date {
  return new Date(DAY_ZERO + (serial < PLAIN_FROM ? serial + 1 : serial) * MS_PER_DAY);
}

function serialOfDate(ms: number): number {
  const serial = Math.round((ms - DAY_ZERO) / MS_PER_DAY);
  return serial < PLAIN_FROM ? serial - 1 : serial;
}

interface Day {
  year: number;
  month: number; // 1-12
  day: number;
  serial: number;
}

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const lastOfMonth = (d: Day) => d.day === new Date(Date.UTC(d.year, d.month, 0)).getUTCDate();

function dayParts(serial: number): Day {
  const date = dateOfSerial(serial);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), serial };
}

/** Days between two dates counted 30 to a month (Excel's US (NASD) rule, basis 0, or the European, basis 4). */
function days360(a: Day, b: Day, european: boolean): number {
  let d1 = a.day;
  let d2 = b.day;
  if (european) {
    d1 = Math.min(d1, 30);
    d2 = Math.min(d2, 30);
  } else if (d1 === 31 && d2 === 31) {
    d1 = 30;
    d2 = 30;
  } else if (d1 === 31) d1 = 30;
  else if (d1 === 30 && d2 === 31) d2 = 30;
  else if (a.month === 2 && b.month === 2 && lastOfMonth(a) && lastOfMonth(b)) {
    d1 = 30;
    d2 = 30;
  } else if (a.month === 2 && lastOfMonth(a)) d1 = 30;
  return d2 + b.month * 30 + b.year * 360 - (d1 + a.month * 30 + a.year * 360);
}

/** Actual/actual (basis 1) as Excel takes it: a year of 365 or 366 days within a year, else their mean. */
function actualYears(a: Day, b: Day): number {
  const days = b.serial - a.serial;
  const withinAYear =
    a.year === b.year ||
    (a.year + 1 === b.year && (a.month > b.month || (a.month === b.month && a.day >= b.day)));
  if (withinAYear) {
    const feb29 =
      (a.year === b.year && isLeap(a.year)) ||
      (isLeap(a.year) && a.month < 3) ||
      (isLeap(b.year) && (b.month > 2 || (b.month === 2 && b.day === 29)));
    return days / (feb29 ? 366 : 365);
  }
  const span = (Date.UTC(b.year + 1, 0, 1) - Date.UTC(a.year, 0, 1)) / MS_PER_DAY;
  return days / (span / (b.year - a.year + 1));
}

/**
 * YEARFRAC(start, end, [basis]) as Excel counts (the parser's let a 31st end a European 30/360 count, and took a
 * period within a year as the start year's length).
 */
function yearFrac(start: Param, end: Param, basis?: Param): unknown {
  const from = dayOf(start.value);
  const to = dayOf(end.value);
  const rule = basis === undefined || basis.omitted ? 0 : wholeOf(basis.value);
  for (const v of [from, to, rule]) if (isFormulaError(v)) return v;
  if ((rule as number) < 0 || (rule as number) > 4) return errors().NUM;
  const [a, b] = [from as number, to as number].sort((x, y) => x - y).map(dayParts) as [Day, Day];
  switch (rule) {
    case 1:
      return actualYears(a, b);
    case 2:
      return (b.serial - a.serial) / 360;
    case 3:
      return (b.serial - a.serial) / 365;
    default:
      return days360(a, b, rule === 4) / 360;
  }
}

export const TIME_FUNCTIONS: Record<string, (...params: Param[]) => unknown> = {
  /** TIME(hour, minute, second): a time of day; past 24 hours, the time it then is (a negative total #NUM!). */
  TIME: (hour, minute, second) => {
    const parts = [hour, minute, second].map((p) => (p === undefined ? 0 : numberOf(p.value)));
    for (const part of parts) if (isFormulaError(part)) return part;
    const [h, m, s] = (parts as number[]).map(Math.trunc) as [number, number, number];
    if (Math.max(h, m, s) > 32_767) return errors().NUM;
    const total = h * 3600 + m * 60 + s;
    return total < 0 ? errors().NUM : (total % SECONDS_PER_DAY) / SECONDS_PER_DAY;
  },
  HOUR: partOfDay((second) => Math.floor(second / 3600)),
  MINUTE: partOfDay((second) => Math.floor((second % 3600) / 60)),
  SECOND: partOfDay((second) => second % 60),
  /** EDATE(start, months): the same day `months` later, or the month's last day when it has fewer. */
  YEARFRAC: yearFrac,
  EDATE: (start, months) => {
    const day = dayOf(start.value);
    const count = months === undefined ? errors().VALUE : wholeOf(months.value);
    if (isFormulaError(day)) return day;
    if (isFormulaError(count)) return count;
    if (Math.abs(count) > LAST_SERIAL) return errors().NUM;
    const date = dateOfSerial(day);
    const target = date.getUTCFullYear() * 12 + date.getUTCMonth() + count;
    const year = Math.floor(target / 12);
    if (year < 1899) return errors().NUM; // and Date.UTC would read a year below 100 as 19xx
    const month = target - year * 12;
    const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
    const serial = serialOfDate(Date.UTC(year, month, Math.min(date.getUTCDate(), last)));
    return serial < 0 || serial > LAST_SERIAL ? errors().NUM : serial;
  },
};
