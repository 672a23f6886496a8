/**
 * Spreadsheets store dates as serial day numbers, the time of day as the fraction. Which day a serial is depends
 * on the spreadsheet's date system, and this is the one place that knows the systems, for every kind:
 * - Excel's 1900 system (a workbook's default): serial 1 is 1900-01-01, and serial 60 is 1900-02-29, a day that
 *   never was (Lotus 1-2-3 counted 1900 as a leap year and Excel kept it), so serials 1 to 59 are one day later
 *   than their count from 1899-12-30, and from 61 (1900-03-01) on they are that count. Serial 0 is Excel's
 *   "1900-01-00": no date, so 0 <= serial < 1 reads as a bare time of day. Negative serials are no dates
 *   (Excel shows ####).
 * - Excel's 1904 system (`workbookPr date1904`, old Mac workbooks): serial 0 is 1904-01-01.
 * - Google Sheets: days since 1899-12-30, no leap-year quirk, earlier dates negative; 0 <= serial < 1 reads as a
 *   bare time of day, as Google shows it under a time format.
 * Each system converts serials to the ISO 8601 text the API returns and back, and says which numbers a date cell
 * shows as a date (a write of any other number into a date cell is refused: cell-rules.ts).
 */

const MS_PER_DAY = 86_400_000;
/** Serial 0 of Google Sheets, and of Excel's 1900 system from 1900-03-01 (serial 61) on. */
const DAY_ZERO = Date.UTC(1899, 11, 30);
const EXCEL_FIRST_DAY = Date.UTC(1900, 0, 1);
/** 1900-03-01, serial 61: from here on Excel's 1900 serials count days from 1899-12-30. */
const EXCEL_PLAIN_FROM = Date.UTC(1900, 2, 1);
const FIRST_DAY_1904 = Date.UTC(1904, 0, 1);
/** The first and last instants ISO 8601's four-digit years (and spreadsheets) can write. */
const FIRST_ISO_MS = Date.parse('0000-01-01T00:00:00Z');
const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export interface DateSystem {
  /** For messages: "Excel's 1900 date system". */
  readonly name: string;
  /**
   * The ISO 8601 text a date cell holding `serial` reads as (`2024-03-01`, `2024-03-01T09:30:00`, a bare time
   * `09:30:00`), or null when the system shows no date for it: the cell then reads as its number.
   */
  iso(serial: number): string | null;
  /**
   * The serial a date cell stores for `date` (its UTC parts are the sheet's wall clock; `timeOnly`: a bare time
   * of day), or null when no serial of this system reads back as that date (the text then stays text).
   */
  serial(date: Date, timeOnly: boolean): number | null;
  /** Whether a date cell shows the number `n` as a date (or a time, or Excel's 1900-02-29). */
  showsAsDate(n: number): boolean;
  /** The numbers `showsAsDate` accepts, for messages: "0 to 2958465.9999999884 (9999-12-31T23:59:59.999)". */
  readonly range: string;
}

/** The wall-clock milliseconds of a serial counting days from `zero`, rounded to the millisecond so a value
 * survives a save/load cycle unchanged; NaN for a number no Date holds. */
function plainMs(serial: number, zero: number): number {
  const ms = Math.round(serial * MS_PER_DAY) + zero;
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? ms : Number.NaN;
}

const plainSerial = (ms: number, zero: number): number => (ms - zero) / MS_PER_DAY;

/**
 * ISO 8601 from the UTC parts: `2024-03-01`, `2024-03-01T09:30:00`, `.sss` only when the milliseconds are not
 * zero, and the time alone (`09:30:00`) when `timeOnly`.
 */
function isoText(ms: number, timeOnly: boolean): string {
  const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:mm:ss.sssZ for the years 0000 to 9999
  const time = iso.slice(11, 19);
  const millis = iso.slice(19, 23);
  const timeText = millis === '.000' ? time : `${time}${millis}`;
  if (timeOnly) return timeText;
  const date = iso.slice(0, 10);
  return timeText === '00:00:00' ? date : `${date}T${timeText}`;
}

/** A calendar date as ISO 8601 text (never a bare time): a date parsed from text, written where no serial is. */
export function isoOfDate(d: Date): string | null {
  const ms = d.getTime();
  return ms >= FIRST_ISO_MS && ms <= LAST_MS ? isoText(ms, false) : null;
}

/** The range text of a system whose date cells show the serials 0 to the one of 9999-12-31T23:59:59.999. */
function rangeText(zero: number): string {
  return `0 to ${plainSerial(LAST_MS, zero)} (9999-12-31T23:59:59.999)`;
}

/** Whether `n` is a serial from 0 up to 9999-12-31T23:59:59.999, after rounding to the millisecond. */
function withinDays(n: number, zero: number): boolean {
  return n >= 0 && plainMs(n, zero) <= LAST_MS;
}

export const EXCEL_1900: DateSystem = {
  name: "Excel's 1900 date system",
  iso(serial) {
    if (!(serial >= 0)) return null;
    let ms = plainMs(serial, DAY_ZERO);
    if (!(ms <= LAST_MS)) return null;
    const day = Math.floor((ms - DAY_ZERO) / MS_PER_DAY);
    if (day === 0) return isoText(ms, true);
    if (day === 60) return null; // 1900-02-29: no ISO date; the cell reads as its number
    if (day < 60) ms += MS_PER_DAY;
    return isoText(ms, false);
  },
  serial(date, timeOnly) {
    const ms = date.getTime();
    if (timeOnly) return plainSerial(ms, DAY_ZERO);
    if (!(ms >= EXCEL_FIRST_DAY && ms <= LAST_MS)) return null;
    return plainSerial(ms, DAY_ZERO) - (ms < EXCEL_PLAIN_FROM ? 1 : 0);
  },
  showsAsDate: (n) => withinDays(n, DAY_ZERO),
  range: rangeText(DAY_ZERO),
};

export const EXCEL_1904: DateSystem = {
  name: "Excel's 1904 date system",
  iso(serial) {
    if (!(serial >= 0)) return null;
    const ms = plainMs(serial, FIRST_DAY_1904);
    return ms <= LAST_MS ? isoText(ms, false) : null;
  },
  serial(date, timeOnly) {
    const ms = date.getTime();
    // Day zero is a date (1904-01-01): no serial reads back as a bare time.
    if (timeOnly || !(ms >= FIRST_DAY_1904 && ms <= LAST_MS)) return null;
    return plainSerial(ms, FIRST_DAY_1904);
  },
  showsAsDate: (n) => withinDays(n, FIRST_DAY_1904),
  range: rangeText(FIRST_DAY_1904),
};

export const GOOGLE_SHEETS: DateSystem = {
  name: 'Google Sheets',
  iso(serial) {
    const ms = plainMs(serial, DAY_ZERO);
    if (!(ms >= FIRST_ISO_MS && ms <= LAST_MS)) return null;
    return isoText(ms, ms >= DAY_ZERO && ms < DAY_ZERO + MS_PER_DAY);
  },
  serial(date, timeOnly) {
    const ms = date.getTime();
    if (!(ms >= FIRST_ISO_MS && ms <= LAST_MS)) return null;
    // A date on day zero (1899-12-30) would read back as a bare time.
    if (!timeOnly && ms >= DAY_ZERO && ms < DAY_ZERO + MS_PER_DAY) return null;
    return plainSerial(ms, DAY_ZERO);
  },
  // Google shows earlier dates too (negative serials), but no documentation says how far back: a write of a
  // number holds to Excel's range, which every spreadsheet program shows alike.
  showsAsDate: (n) => withinDays(n, DAY_ZERO),
  range: rangeText(DAY_ZERO),
};

/** A workbook's date system: its `workbookPr date1904` flag. */
export function workbookDateSystem(date1904: boolean): DateSystem {
  return date1904 ? EXCEL_1904 : EXCEL_1900;
}
