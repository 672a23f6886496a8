/**
 * WORKDAY, WORKDAY.INTL, NETWORKDAYS and NETWORKDAYS.INTL as Excel computes them, by arithmetic on whole weeks
 * and a sorted list of holidays: a count of days never walks them one by one. fast-formula-parser's walked
 * every day (and every holiday for each day), so `=WORKDAY(A2,B2)` with B2 written as 10^12 through the API
 * held the service's thread without end; it also had no backward WORKDAY (a negative count gave the next day).
 * Dates are serial numbers (Excel's 1900 system: serial 1 is a Sunday to it), whole days, from 0 to 2958465
 * (9999-12-31); a date or a result outside that is #NUM!, as in Excel.
 */
import { dayOf, LAST_SERIAL, wholeOf } from './number-argument.ts';
import { type FormulaErrorValue, formulaLibrary } from './parser.ts';

interface Param {
  value: unknown;
  omitted?: boolean;
}

/** Which weekdays, Monday first, are weekend days. */
type Weekend = readonly boolean[];

const errors = () => formulaLibrary().FormulaError;
const isError = (v: unknown): v is FormulaErrorValue => v instanceof errors();

/** Monday 0 ... Sunday 6 for a serial (serial 2 is a Monday to Excel). */
const weekday = (serial: number) => (((serial + 5) % 7) + 7) % 7;

/** The weekend of a *.INTL call: a code (1-7: two days, 11-17: one) or seven 0/1 characters, Monday first. */
function weekendOf(param: Param | undefined): Weekend | FormulaErrorValue {
  const v = param === undefined || param.omitted || param.value === null ? 1 : param.value;
  if (isError(v)) return v;
  if (typeof v === 'string') {
    if (!/^[01]{7}$/.test(v) || v === '1111111') return errors().VALUE;
    return [...v].map((c) => c === '1');
  }
  if (typeof v !== 'number') return errors().VALUE;
  const code = Math.trunc(v);
  const days = new Array<boolean>(7).fill(false);
  // Code 1 is Saturday and Sunday, 2 Sunday and Monday, ... 7 Friday and Saturday; 11 Sunday alone ... 17 Saturday.
  if (code >= 1 && code <= 7) {
    days[(code + 4) % 7] = true;
    days[(code + 5) % 7] = true;
  } else if (code >= 11 && code <= 17) days[(code - 5) % 7] = true;
  else return errors().NUM;
  return days;
}

/** The holidays that fall on working days, sorted and without repeats; blanks ignored. */
function holidaysOf(param: Param | undefined, weekend: Weekend): number[] | FormulaErrorValue {
  if (param === undefined || param.omitted) return [];
  const values = Array.isArray(param.value) ? param.value.flat(2) : [param.value];
  const days = new Set<number>();
  for (const v of values) {
    if (v === null || v === undefined) continue;
    const day = dayOf(v);
    if (isError(day)) return day;
    if (!weekend[weekday(day)]) days.add(day);
  }
  return [...days].sort((a, b) => a - b);
}

/** How many of `sorted` lie in [from, to]. */
function countIn(sorted: readonly number[], from: number, to: number): number {
  const firstAtOrAfter = (x: number) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return to < from ? 0 : firstAtOrAfter(to + 1) - firstAtOrAfter(from);
}

/** Working days in [from, to] (from <= to): whole weeks at once, then the few days left. */
function workingDays(from: number, to: number, weekend: Weekend, holidays: readonly number[]): number {
  if (to < from) return 0;
  const span = to - from + 1;
  const perWeek = weekend.filter((w) => !w).length;
  let count = Math.floor(span / 7) * perWeek;
  for (let day = from + Math.floor(span / 7) * 7; day <= to; day++) if (!weekend[weekday(day)]) count++;
  return count - countIn(holidays, from, to);
}

/** The day `days` working days from `start` (none: `start` itself). */
function workdayFrom(start: number, days: number, weekend: Weekend, holidays: readonly number[]): number {
  if (days === 0) return start;
  const perWeek = weekend.filter((w) => !w).length;
  // Far enough for `days` working days, each holiday costing at most one week more.
  const reach = (Math.ceil(Math.abs(days) / perWeek) + holidays.length + 1) * 7;
  let lo = days > 0 ? start + 1 : start - reach;
  let hi = days > 0 ? start + reach : start - 1;
  // Forward: the first day by which `days` working days have passed; backward: the last from which they do.
  while (lo < hi) {
    if (days > 0) {
      const mid = Math.floor((lo + hi) / 2);
      if (workingDays(start + 1, mid, weekend, holidays) >= days) hi = mid;
      else lo = mid + 1;
    } else {
      const mid = Math.ceil((lo + hi) / 2);
      if (workingDays(mid, start - 1, weekend, holidays) >= -days) lo = mid;
      else hi = mid - 1;
    }
  }
  return lo;
}

interface Calendar {
  from: number;
  weekend: Weekend;
  holidays: number[];
}

/** What every one of the four reads: its start date, its weekend and its holidays, or the first error. */
function calendarOf(start: Param, weekendParam?: Param, holidayParam?: Param): Calendar | FormulaErrorValue {
  const from = dayOf(start.value);
  if (isError(from)) return from;
  const weekend = weekendOf(weekendParam);
  if (isError(weekend)) return weekend;
  const holidays = holidaysOf(holidayParam, weekend);
  return isError(holidays) ? holidays : { from, weekend, holidays };
}

function workday(calendar: Calendar | FormulaErrorValue, days: Param): unknown {
  if (isError(calendar)) return calendar;
  const count = wholeOf(days.value);
  if (isError(count)) return count;
  if (Math.abs(count) > LAST_SERIAL) return errors().NUM;
  const day = workdayFrom(calendar.from, count, calendar.weekend, calendar.holidays);
  return day < 0 || day > LAST_SERIAL ? errors().NUM : day;
}

function networkdays(calendar: Calendar | FormulaErrorValue, end: Param): unknown {
  if (isError(calendar)) return calendar;
  const to = dayOf(end.value);
  if (isError(to)) return to;
  const { from, weekend, holidays } = calendar;
  return from <= to ? workingDays(from, to, weekend, holidays) : -workingDays(to, from, weekend, holidays);
}

export const WORKDAY_FUNCTIONS = {
  WORKDAY: (start: Param, days: Param, holidays?: Param) =>
    workday(calendarOf(start, undefined, holidays), days),
  'WORKDAY.INTL': (start: Param, days: Param, weekend?: Param, holidays?: Param) =>
    workday(calendarOf(start, weekend, holidays), days),
  NETWORKDAYS: (start: Param, end: Param, holidays?: Param) =>
    networkdays(calendarOf(start, undefined, holidays), end),
  'NETWORKDAYS.INTL': (start: Param, end: Param, weekend?: Param, holidays?: Param) =>
    networkdays(calendarOf(start, weekend, holidays), end),
};
