/**
 * What the scale benchmark asks of a server under test, SheetPort or json-server: the requests it times, each
 * spelled in that server's own API, and how to stop it.
 */
import type { Call } from './timing.ts';

export interface ServerUnderTest {
  /** The column heading: "SheetPort .xlsx", "json-server". */
  name: string;
  pid: number;
  /** Spawn to the first successful answer of a 100-row list. */
  coldStartMs: number;
  /** A 100-row page at a new offset on each `i` (no page cache can help). */
  listPage(i: number): Call;
  /** A search for a new term on each `i` (no cached filter can help). */
  search(i: number): Call;
  /** A small read, issued in a loop while writes run. */
  smallRead(): Call;
  deleteRow(i: number): Call;
  appendRow(i: number): Call;
  updateRow(i: number): Call;
  /** The served file, for the outside edit; null for a server that does not watch its file. */
  file: string | null;
  /** The outside-edited cell's value as the server answers it now. */
  editedCell(): Promise<unknown>;
  stop(): Promise<void>;
}

/** The data rows the benchmark's appends add; `Customer` marks them for the file check. */
export const APPEND_MARKER = 'Scale Append';
export const appendedRow = (i: number) => ({
  'Order ID': 9_000_000 + i,
  Customer: APPEND_MARKER,
  Email: 'scale.append@example.com',
  Region: 'North',
  Product: 'Widget',
  Quantity: 2,
  'Unit Price': 12.5,
  'Order Date': '2024-03-01',
  Shipped: false,
});

/** Where each kind of write lands in a tab of `rows` data rows: in the middle, deletes above the updates. */
export const writePlace = (rows: number) => ({
  deleteAt: Math.floor(rows / 2),
  updateFrom: Math.floor(rows / 2) + Math.floor(rows / 10),
});

/** The i-th "new" 100-row page of `rows`: offsets spread over the tab. */
export const pageOffset = (i: number, rows: number): number =>
  ((i * 7919) % Math.max(1, Math.floor(rows / 100) - 1)) * 100;

/** The i-th search term: an Order ID (a number of 6 or 7 digits) spread over the tab. */
export const searchTerm = (i: number, rows: number): string => String(100_001 + ((i * 104_729) % rows));
