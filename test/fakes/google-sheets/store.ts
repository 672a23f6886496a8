// Drive files and the spreadsheets behind them. A spreadsheet id is its Drive file id; every
// change bumps the file's `version` and `modifiedTime` (what a poller watches).
import { randomBytes, randomInt } from 'node:crypto';
import { Grid } from './grid.ts';

export const SPREADSHEET_MIME = 'application/vnd.google-apps.spreadsheet';

export type Clock = () => number;

export type SheetProps = {
  sheetId: number;
  title: string;
  index: number;
  rowCount: number;
  columnCount: number;
  hidden?: boolean;
  frozenRowCount?: number;
  frozenColumnCount?: number;
  /** GridProperties' flags (structural.ts GRID_FLAGS): kept only when true, as Google's JSON shows them. */
  hideGridlines?: true;
  rowGroupControlAfter?: true;
  columnGroupControlAfter?: true;
  tabColorStyle?: Record<string, unknown>;
  rightToLeft?: boolean;
};

export type Sheet = SheetProps & { grid: Grid };

export type SpreadsheetProps = { title: string; locale: string; timeZone: string; autoRecalc: string };

export type DriveFile = {
  id: string;
  name: string;
  mimeType: string;
  createdTime: number;
  modifiedTime: number;
  version: number;
  /** Present for spreadsheets only. */
  book?: Book;
};

export type Book = { properties: SpreadsheetProps; sheets: Sheet[] };

export const DEFAULT_ROWS = 1000;
export const DEFAULT_COLUMNS = 26;

export function newSheet(
  props: Partial<SheetProps> & { sheetId: number; title: string; index: number },
): Sheet {
  return { rowCount: DEFAULT_ROWS, columnCount: DEFAULT_COLUMNS, ...props, grid: new Grid() };
}

export function cloneBook(book: Book): Book {
  return {
    properties: { ...book.properties },
    sheets: book.sheets.map((s) => ({ ...structuredClone({ ...s, grid: undefined }), grid: s.grid.clone() })),
  };
}

/** Drive ids of Google editor files: 44 characters of base64url, starting with "1". */
function newFileId(): string {
  return `1${randomBytes(33).toString('base64url').slice(0, 43)}`;
}

export class Store {
  private readonly files = new Map<string, DriveFile>();
  /**
   * Files that exist but belong to another account and are not shared with the caller (a switch): Sheets answers
   * them 403 PERMISSION_DENIED, Drive the 404 of a missing file and leaves them out of its lists.
   */
  readonly denied = new Set<string>();
  /** Spreadsheets shared with the caller view-only (a switch): Sheets reads them, and answers a change 403. */
  readonly viewOnly = new Set<string>();
  readonly clock: Clock;
  private lastStamp = 0;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  /** Strictly increasing, so two changes within one millisecond still differ. */
  now(): number {
    this.lastStamp = Math.max(this.clock(), this.lastStamp + 1);
    return this.lastStamp;
  }

  createFile(name: string, mimeType: string, locale = 'en_US', timeZone = 'Etc/GMT'): DriveFile {
    const stamp = this.now();
    const file: DriveFile = {
      id: newFileId(),
      name,
      mimeType,
      createdTime: stamp,
      modifiedTime: stamp,
      version: 1,
    };
    if (mimeType === SPREADSHEET_MIME) {
      file.book = {
        properties: { title: name, locale, timeZone, autoRecalc: 'ON_CHANGE' },
        sheets: [newSheet({ sheetId: 0, title: 'Sheet1', index: 0 })],
      };
    }
    this.files.set(file.id, file);
    return file;
  }

  get(id: string): DriveFile | undefined {
    return this.files.get(id);
  }

  /** The files the caller can see: Drive lists no file that is not shared with it. */
  list(): DriveFile[] {
    return [...this.files.values()].filter((file) => !this.denied.has(file.id));
  }

  delete(id: string): boolean {
    return this.files.delete(id);
  }

  /** Records a change: bumps version and modifiedTime, keeps the Drive name and sheet title in step. */
  touch(file: DriveFile): void {
    file.version += 1;
    file.modifiedTime = this.now();
    if (file.book) file.name = file.book.properties.title;
  }

  /** Replaces a spreadsheet's content with a fully-validated new state (atomic batch updates). */
  commit(file: DriveFile, book: Book): void {
    file.book = book;
    this.touch(file);
  }

  copy(source: DriveFile, name: string): DriveFile {
    const stamp = this.now();
    const file: DriveFile = {
      ...source,
      id: newFileId(),
      name,
      createdTime: stamp,
      modifiedTime: stamp,
      version: 1,
    };
    if (source.book)
      file.book = { ...cloneBook(source.book), properties: { ...source.book.properties, title: name } };
    this.files.set(file.id, file);
    return file;
  }
}

/** New sheets get random positive 31-bit ids, like Google's. */
export function newSheetId(book: Book): number {
  for (;;) {
    const id = randomInt(1, 2 ** 31 - 1);
    if (!book.sheets.some((s) => s.sheetId === id)) return id;
  }
}
