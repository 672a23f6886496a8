/**
 * The benchmark's data: an "Orders" tab with realistic mixed columns (ids, text, e-mail addresses, numbers
 * with decimals and currency formats, dates, booleans and mostly-empty columns). Deterministic (seeded), so
 * every run measures the same rows and the bare-Express baseline can serve exactly the rows SheetPort returns.
 */
import ExcelJS from 'exceljs';
import { seededRandom } from '../server/lib/seeded-random.ts';

export type Value = string | number | boolean | null;

export const HEADER = [
  'Order ID',
  'Order No',
  'Customer',
  'Email',
  'Region',
  'Product',
  'Category',
  'Quantity',
  'Unit Price',
  'Total',
  'Order Date',
  'Shipped',
  'Discount',
  'Notes',
] as const;

export const TAB = 'Orders';
export const SMALL_ROWS = 5_000;
export const LARGE_ROWS = 100_000;
/** Case (c): a substring common to a third of the rows ("North", "North East", "North West"), largest total first. */
export const SEARCH = 'Region:north';
export const SORT = '-Total';

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Margaret',
  'Ken',
  'Radia',
  'Linus',
  'Frances',
  'Tim',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Hamilton',
  'Thompson',
  'Perlman',
  'Torvalds',
  'Allen',
  'Berners-Lee',
];
const REGIONS = [
  'North',
  'North East',
  'North West',
  'South',
  'South East',
  'South West',
  'East',
  'West',
  'Central',
];
const PRODUCTS: [string, string, number][] = [
  ['Widget', 'Hardware', 12.5],
  ['Gadget', 'Hardware', 49.99],
  ['Sprocket', 'Hardware', 3.2],
  ['Gizmo', 'Electronics', 129],
  ['Doohickey', 'Electronics', 18.75],
  ['Thingamajig', 'Accessories', 7.99],
  ['Whatsit', 'Accessories', 2.49],
  ['Contraption', 'Machinery', 899],
];
const NOTES = [
  'Call before delivery',
  'Gift wrap',
  'Leave at the back door',
  'Invoice to head office',
  'Fragile, handle with care',
];

const DAY_MS = 86_400_000;
const START = Date.UTC(2022, 0, 3);

/**
 * Row values as the API returns them in typed mode (dates as ISO `YYYY-MM-DD` strings), in HEADER order.
 * The xlsx writer turns the date strings back into date cells.
 */
export function generateRows(count: number, seed = 20240301): Value[][] {
  const rnd = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const rows: Value[][] = [];
  for (let i = 0; i < count; i++) {
    const first = pick(FIRST);
    const last = pick(LAST);
    const [product, category, price] = pick(PRODUCTS);
    const quantity = 1 + Math.floor(rnd() * 20);
    const discount = rnd() < 0.3 ? Math.round(rnd() * 20) / 100 : null;
    const total = Math.round(quantity * price * (1 - (discount ?? 0)) * 100) / 100;
    const date = new Date(START + Math.floor(rnd() * 900) * DAY_MS).toISOString().slice(0, 10);
    rows.push([
      100_001 + i,
      `SO-${String(i + 1).padStart(6, '0')}`,
      `${first} ${last}`,
      `${first}.${last}${Math.floor(rnd() * 100)}@example.com`.toLowerCase(),
      pick(REGIONS),
      product,
      category,
      quantity,
      price,
      total,
      date,
      rnd() < 0.6,
      discount,
      rnd() < 0.15 ? pick(NOTES) : null,
    ]);
  }
  return rows;
}

/** The rows as JSON objects keyed by header name (what a shape-A list returns). */
export function rowObjects(rows: Value[][]): Record<string, Value>[] {
  return rows.map((row) => Object.fromEntries(HEADER.map((name, i) => [name, row[i] ?? null])));
}

const DATE_COLUMN = HEADER.indexOf('Order Date');

/** Writes the rows as one styled "Orders" tab with ExcelJS's streaming writer (fast enough for 100k rows). */
export async function writeOrdersWorkbook(file: string, rows: Value[][]): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: file,
    useStyles: true,
    useSharedStrings: true,
  });
  const sheet = workbook.addWorksheet(TAB);
  const money = '"$"#,##0.00';
  sheet.columns = HEADER.map((name) => ({
    header: name,
    key: name,
    width: Math.max(10, name.length + 2),
    ...(name === 'Unit Price' || name === 'Total' ? { style: { numFmt: money } } : {}),
    ...(name === 'Order Date' ? { style: { numFmt: 'yyyy-mm-dd' } } : {}),
    ...(name === 'Discount' ? { style: { numFmt: '0%' } } : {}),
  }));
  sheet.getRow(1).font = { bold: true };
  for (const row of rows) {
    const cells = row.map((v, i) =>
      i === DATE_COLUMN && typeof v === 'string' ? new Date(`${v}T00:00:00Z`) : v,
    );
    sheet.addRow(cells).commit();
  }
  sheet.commit();
  await workbook.commit();
}
