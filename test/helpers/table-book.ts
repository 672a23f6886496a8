/**
 * A one-tab workbook written by another program (openpyxl), connected to a harness as its kind: what the tests
 * of querying and writing by key or filter start from. `sheet` is the tab's `/v1/sheets/{sheetId}` path.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ConnectedBook, Harness } from './harness.ts';
import { type TableCell, writeTableWithOpenpyxl } from './openpyxl.ts';

export interface TableBook {
  book: ConnectedBook;
  /** `/v1/sheets/{sheetId}` of the tab. */
  sheet: string;
  /** Removes the workbook's temp dir (the harness is closed by its owner). */
  remove(): Promise<void>;
}

export async function connectTable(
  h: Harness,
  tab: string,
  header: readonly string[],
  rows: readonly (readonly TableCell[])[],
): Promise<TableBook> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-table-'));
  const file = path.join(dir, `${tab.toLowerCase()}.xlsx`);
  await writeTableWithOpenpyxl(file, tab, header, rows);
  const book = await h.connectBook(file);
  const listed = await (await h.fetch(`/v1/spreadsheets/${book.connection.spreadsheetId}`)).json();
  return {
    book,
    sheet: `/v1/sheets/${listed.sheets[0].sheet_id}`,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
