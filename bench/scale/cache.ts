/**
 * The scale benchmark's input files, made once and kept in a cache dir under the OS temp dir: for each size the
 * workbook as .xlsx and .csv, the same workbook with one cell changed (what "another program's save" writes),
 * and json-server's db.json. A file is written under a temporary name and renamed when whole, so an interrupted
 * run never leaves a half file to be reused.
 */
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Value } from '../data.ts';
import { writeFastXlsx } from './fast-xlsx.ts';
import type { Kind } from './options.ts';
import { SCALE_COLUMNS, scaleRows, TOTAL_COLUMN, writeScaleCsv, writeScaleDb } from './scale-data.ts';

export const SCALE_TAB = 'Orders';
/** The cell the outside edit changes: the first data row's `Customer`. */
export const EDITED_FIELD = 'Customer';
export const EDITED_VALUE = 'Edited Elsewhere';

export const CACHE_DIR = path.join(os.tmpdir(), 'sheetport-scale-cache-v1');

export interface ScaleFiles {
  /** The workbook of each kind, as generated. */
  workbook: Record<Kind, string>;
  /** The same workbook with the first data row's `Customer` changed. */
  edited: Record<Kind, string>;
  /** json-server's db.json with the same rows. */
  db: string;
}

function* editedRows(count: number): Generator<Value[]> {
  const column = SCALE_COLUMNS.findIndex((c) => c.name === EDITED_FIELD);
  let first = true;
  for (const row of scaleRows(count)) {
    if (first) row[column] = EDITED_VALUE;
    first = false;
    yield row;
  }
}

async function once(file: string, make: (partial: string) => Promise<void> | void): Promise<string> {
  if (existsSync(file)) return file;
  const started = performance.now();
  const partial = `${file}.partial`;
  await make(partial);
  renameSync(partial, file);
  console.error(
    `  generated ${path.basename(file)} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return file;
}

/**
 * The files of `count` rows for `kinds`, generated now unless the cache has them; with `formulas`, the .xlsx
 * has the Total column (scale-data.ts) and is kept under its own name.
 */
export async function scaleFiles(count: number, kinds: Kind[], formulas = false): Promise<ScaleFiles> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const at = (suffix: string) => path.join(CACHE_DIR, `orders-${count}${suffix}`);
  const book = formulas ? '-formulas' : '';
  const workbook = { xlsx: at(`${book}.xlsx`), csv: at('.csv') };
  const edited = { xlsx: at(`${book}-edited.xlsx`), csv: at('-edited.csv') };
  const columns = formulas ? [...SCALE_COLUMNS, TOTAL_COLUMN] : SCALE_COLUMNS;
  if (kinds.includes('xlsx')) {
    await once(workbook.xlsx, (f) => writeFastXlsx(f, SCALE_TAB, columns, scaleRows(count)));
    await once(edited.xlsx, (f) => writeFastXlsx(f, SCALE_TAB, columns, editedRows(count)));
  }
  if (kinds.includes('csv')) {
    await once(workbook.csv, (f) => writeScaleCsv(f, count));
    await once(edited.csv, (f) => writeScaleCsv(f, count, editedRows(count)));
  }
  const db = await once(at('.db.json'), (f) => writeScaleDb(f, count));
  return { workbook, edited, db };
}
