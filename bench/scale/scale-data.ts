/**
 * The scale benchmark's rows: ten mixed columns (a number id, text, an e-mail address, a region, a product, a
 * whole number, money, a date, a boolean and a mostly-empty note), seeded so every run measures the same rows,
 * written as .xlsx (fast-xlsx.ts), .csv, and json-server's db.json.
 */

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { generateRows, type Value } from '../data.ts';
import type { XlsxColumn } from './fast-xlsx.ts';

/** The columns taken from the HTTP benchmark's Orders rows (bench/data.ts), in this order. */
const PICK = [0, 2, 3, 4, 5, 7, 8, 10, 11, 13] as const;

export const SCALE_COLUMNS: XlsxColumn[] = [
  { name: 'Order ID' },
  { name: 'Customer' },
  { name: 'Email' },
  { name: 'Region' },
  { name: 'Product' },
  { name: 'Quantity' },
  { name: 'Unit Price', format: 'money' },
  { name: 'Order Date', format: 'date' },
  { name: 'Shipped' },
  { name: 'Notes' },
];

/**
 * `--formulas`' eleventh column: Quantity times Unit Price, as a user's total column, written like openpyxl
 * writes formulas (no cached result, so the service computes every one when it opens the file).
 */
export const TOTAL_COLUMN: XlsxColumn = { name: 'Total', formula: (row) => `F${row}*G${row}` };

const BLOCK = 50_000;

/** `count` rows, made a block at a time (a million rows of objects at once would cost the writer ~1 GB). */
export function* scaleRows(count: number): Generator<Value[]> {
  for (let start = 0; start < count; start += BLOCK) {
    const block = generateRows(Math.min(BLOCK, count - start), 20240301 + start);
    for (let i = 0; i < block.length; i++) {
      const row = block[i]!;
      row[0] = 100_001 + start + i;
      yield PICK.map((c) => row[c] ?? null);
    }
  }
}

const csvField = (value: Value): string => {
  if (value === null) return '';
  const text = String(value === true ? 'TRUE' : value === false ? 'FALSE' : value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

async function writeLines(file: string, lines: Iterable<string>): Promise<void> {
  const out = createWriteStream(file);
  let pending = '';
  for (const line of lines) {
    pending += line;
    if (pending.length > 1 << 20) {
      if (!out.write(pending)) await once(out, 'drain');
      pending = '';
    }
  }
  out.end(pending);
  await once(out, 'finish');
}

/** The rows (`scaleRows(count)` unless given) as a CSV file (CRLF, as Excel saves it). */
export async function writeScaleCsv(
  file: string,
  count: number,
  rows: Iterable<Value[]> = scaleRows(count),
): Promise<void> {
  function* lines(): Generator<string> {
    yield `${SCALE_COLUMNS.map((c) => csvField(c.name)).join(',')}\r\n`;
    for (const row of rows) yield `${row.map(csvField).join(',')}\r\n`;
  }
  await writeLines(file, lines());
}

/** json-server's db.json: the rows as objects with an `id`, under the collection `rows`. */
export async function writeScaleDb(file: string, count: number): Promise<void> {
  function* lines(): Generator<string> {
    yield '{"rows":[\n';
    let first = true;
    for (const row of scaleRows(count)) {
      const record: Record<string, Value> = { id: row[0] ?? null };
      SCALE_COLUMNS.forEach((c, i) => {
        record[c.name] = row[i] ?? null;
      });
      yield `${first ? '' : ',\n'}${JSON.stringify(record)}`;
      first = false;
    }
    yield '\n]}\n';
  }
  await writeLines(file, lines());
}
