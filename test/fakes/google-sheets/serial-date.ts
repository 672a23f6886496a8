// Spreadsheet serial dates: days since 1899-12-30, the time of day as the fraction.
const EPOCH_OFFSET_DAYS = 25569; // 1970-01-01 as a serial number
const DAY_MS = 86_400_000;

export const serialFromUtc = (ms: number): number => ms / DAY_MS + EPOCH_OFFSET_DAYS;

export const serialFromParts = (y: number, m: number, d: number, hh = 0, mm = 0, ss = 0): number =>
  serialFromUtc(Date.UTC(y, m - 1, d, hh, mm, ss));

export const isValidDate = (y: number, m: number, d: number): boolean => {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
};
