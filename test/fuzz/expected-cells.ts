/**
 * What a written value must read back as, worked out without SheetPort's code (the contract's Values rules):
 * numbers stay numbers, text stays text (formula-looking text included, for a key that may not write formulas),
 * `null` and `""` clear the cell; in a date cell a whole serial day reads as its ISO date and a number no date
 * cell can show must be refused. Where the rules leave a choice, every reading they allow is accepted.
 */
import type { Credential } from './request-plan.ts';
import { DATE_COLUMN } from './workbook.ts';

export type Cell = string | number | boolean | null;

/** The readings a cell may have: one value, or any of several (pinned to what the service showed, once seen). */
export type Expected = { is: Cell } | { anyOf: Cell[] } | { anything: true };

/** The write must have been refused: acknowledging it is a defect. */
export class MustRefuse extends Error {}

const DAY_MS = 86_400_000;
const SERIAL_EPOCH = Date.UTC(1899, 11, 30);
/** The last serial day Excel shows as a date (9999-12-31). */
const LAST_DATE_SERIAL = 2_958_465;

/** A whole serial day from 61 on (after Excel's fictitious 1900-02-29) as ISO text. */
function isoOfSerial(serial: number): string {
  return new Date(SERIAL_EPOCH + serial * DAY_MS).toISOString().slice(0, 10);
}

/** A date-time written where dates are is stored as one, shown in the cell's own format: its reading is open. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T/;

/**
 * Whether the cell written is a date cell: `date` (a date-formatted cell of the date column), `maybe` (a new row's,
 * or one that has read as a date: it may or may not have a date format), or `no`.
 */
export type DateKind = 'date' | 'maybe' | 'no';

function numberIn(kind: DateKind, value: number): Expected {
  if (kind === 'no') return { is: value };
  const showable = value >= 0 && value < LAST_DATE_SERIAL + 1;
  // Where the cell may not be a date cell, a number it cannot show as a date is stored as the number.
  if (!showable) {
    if (kind === 'maybe') return { is: value };
    throw new MustRefuse(`${value} written to a date cell`);
  }
  const date = Number.isInteger(value) && value >= 61 ? isoOfSerial(value) : null;
  if (date === null) return { anything: true };
  return kind === 'maybe' ? { anyOf: [value, date] } : { is: date };
}

function textIn(column: string, text: string, credential: Credential, kind: DateKind): Expected {
  if (text === '') return { is: null };
  if (credential === 'formulas' && text.startsWith('=') && text.length > 1) return { anything: true };
  if ((column === DATE_COLUMN || kind !== 'no') && ISO_DATE_TIME.test(text)) return { anything: true };
  // An ISO date written where dates are is stored as a date and reads as the same text; other text stays text.
  return { is: text };
}

/** The reading a value written to `column` must have; throws MustRefuse when no cell could take it. */
export function expectedCell(
  column: string,
  value: unknown,
  credential: Credential,
  kind: DateKind,
): Expected {
  if (value === null) return { is: null };
  if (typeof value === 'boolean') return { is: value };
  if (typeof value === 'number') return numberIn(kind, value);
  if (typeof value === 'string') return textIn(column, value, credential, kind);
  throw new MustRefuse(`a ${Array.isArray(value) ? 'list' : 'nested object'} written to a cell`);
}

export function matches(expected: Expected, actual: Cell): boolean {
  if ('anything' in expected) return true;
  if ('is' in expected) return Object.is(expected.is, actual) || expected.is === actual;
  return expected.anyOf.some((v) => v === actual);
}

export const show = (expected: Expected): string =>
  'anything' in expected
    ? 'anything'
    : 'is' in expected
      ? JSON.stringify(expected.is)
      : `one of ${JSON.stringify(expected.anyOf)}`;
