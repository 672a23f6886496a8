/**
 * Spreadsheets store dates as serial day numbers (Excel's 1900 system, which Google Sheets shares): whole days
 * since 1899-12-30, the time of day as the fraction. These convert between serials, Dates and the ISO 8601 text
 * the API returns, for every kind of source.
 */

const MS_PER_DAY = 86_400_000;
/** 1970-01-01 as a serial number. */
const UNIX_EPOCH_SERIAL = 25_569;

export function dateToSerial(d: Date): number {
  return d.getTime() / MS_PER_DAY + UNIX_EPOCH_SERIAL;
}

export function serialToDate(serial: number): Date {
  // Rounded to the millisecond, so a value survives a save/load cycle unchanged.
  return new Date(Math.round((serial - UNIX_EPOCH_SERIAL) * MS_PER_DAY));
}

/**
 * ISO 8601 from the UTC parts (a serial's Date is built as if the sheet's wall clock were UTC):
 * `2024-03-01`, `2024-03-01T09:30:00`, `.sss` only when milliseconds are non-zero, and a bare time for
 * time-only cells (serial < 1, i.e. a date part of 1899-12-30/31).
 */
export function isoFromDate(d: Date): string | null {
  if (!Number.isFinite(d.getTime())) return null;
  const iso = d.toISOString(); // YYYY-MM-DDTHH:mm:ss.sssZ (years outside 0..9999 get a sign; fine)
  const tIndex = iso.indexOf('T');
  const datePart = iso.slice(0, tIndex);
  const time = iso.slice(tIndex + 1, tIndex + 9);
  const ms = iso.slice(tIndex + 9, tIndex + 13);
  const timeText = ms === '.000' ? time : `${time}${ms}`;
  if (datePart === '1899-12-30' || datePart === '1899-12-31') return timeText;
  if (timeText === '00:00:00') return datePart;
  return `${datePart}T${timeText}`;
}
