// Reading and changing one spreadsheet: 404 when it is not there, 403 when not shared with the caller (or, for
// a change, shared view-only), 400 FAILED_PRECONDITION for a Drive file that is no spreadsheet; changes run on a
// copy that replaces the original only when the whole request succeeded (Google's batch atomicity), and only when
// the spreadsheet's grids (every tab's rows times columns) stay within Google's 10,000,000 cells.
import { badRequest, notSupportedForDocument, permissionDenied, sheetsNotFound } from './errors.ts';
import { recalculate } from './formula.ts';
import { type Book, cloneBook, type DriveFile, type Store } from './store.ts';

export function spreadsheetFile(store: Store, id: string): DriveFile & { book: Book } {
  const file = store.get(id);
  if (!file) throw sheetsNotFound();
  // Sheets, unlike Drive, tells a file the caller may not open from a missing one.
  if (store.denied.has(id)) throw permissionDenied();
  if (!file.book) throw notSupportedForDocument();
  return file as DriveFile & { book: Book };
}

/** Google's limit on a spreadsheet's cells, all tabs' grids together, empty cells included. */
export const MAX_CELLS = 10_000_000;

const cellsOf = (book: Book): number =>
  book.sheets.reduce((sum, sheet) => sum + sheet.rowCount * sheet.columnCount, 0);

export function changeBook<T>(store: Store, id: string, change: (book: Book) => T): T {
  const file = spreadsheetFile(store, id);
  // A viewer gets the same answer as a stranger: Sheets does not say that reading would be allowed.
  if (store.viewOnly.has(id)) throw permissionDenied();
  const draft = cloneBook(file.book);
  const result = change(draft);
  const cells = cellsOf(draft);
  if (cells > MAX_CELLS && cells > cellsOf(file.book)) {
    throw badRequest(
      `This action would increase the number of cells in the workbook above the limit of ${MAX_CELLS} cells.`,
    );
  }
  recalculate(draft);
  store.commit(file, draft);
  return result;
}
