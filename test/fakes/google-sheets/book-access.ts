// Reading and changing one spreadsheet: 404 when it is not there; changes run on a copy that
// replaces the original only when the whole request succeeded (Google's batch atomicity).
import { GoogleError, sheetsNotFound } from './errors.ts';
import { recalculate } from './formula.ts';
import { type Book, cloneBook, type DriveFile, type Store } from './store.ts';

export function spreadsheetFile(store: Store, id: string): DriveFile & { book: Book } {
  const file = store.get(id);
  if (!file?.book) throw sheetsNotFound();
  if (store.denied.has(id)) throw new GoogleError(403, 'The caller does not have permission');
  return file as DriveFile & { book: Book };
}

export function changeBook<T>(store: Store, id: string, change: (book: Book) => T): T {
  const file = spreadsheetFile(store, id);
  const draft = cloneBook(file.book);
  const result = change(draft);
  recalculate(draft);
  store.commit(file, draft);
  return result;
}
