/**
 * The demo workbook for the README's first run: an `Orders` tab (~300 rows of every value type: text,
 * Unicode names, numbers with a currency format, a formula column with cached results, dates, booleans,
 * mostly-empty notes) and a `Products` tab, each with a bold, filled, frozen header row and set column widths.
 * Content is deterministic (seeded PRNG, fixed dates; the file's bytes too) so tests and docs can rely on it.
 * Written by the engine's own package writer (ooxml/new-workbook.ts).
 */
import fs from 'node:fs/promises';
import { PRIVATE_FILE_MODE } from '../../lib/private-files.ts';
import { seededRandom } from '../../lib/seeded-random.ts';
import {
  type CellStyle,
  type NewCell,
  type NewTab,
  type NewWorkbook,
  newWorkbook,
} from './ooxml/new-workbook.ts';

const CURRENCY = '"$"#,##0.00';
const ORDER_COUNT = 300;

const CUSTOMERS: [string, string][] = [
  ['Zoë Ångström', 'zoe.angstrom@example.com'],
  ['Ada Lovelace', 'ada@example.com'],
  ['José Núñez', 'jose.nunez@example.com'],
  ['Søren Kierkegaard', 'soren.k@example.com'],
  ['Grace Hopper', 'grace.hopper@example.com'],
  ['Chloé Dubois', 'chloe.dubois@example.fr'],
  ['Łukasz Wiśniewski', 'lukasz.w@example.pl'],
  ['Mei Chen', 'mei.chen@example.com'],
  ['Oluwaseun Adeyemi', 'seun.adeyemi@example.com'],
  ['Björk Guðmundsdóttir', 'bjork@example.is'],
  ['Priya Raman', 'priya.raman@example.in'],
  ['Mateo García', 'mateo.garcia@example.es'],
  ['Hannah Müller', 'hannah.mueller@example.de'],
  ['Kenji Watanabe', 'kenji.w@example.jp'],
  ['Fatima Zahra', 'fatima.zahra@example.ma'],
  ['Liam O’Brien', 'liam.obrien@example.ie'],
  ['Anaïs Lefèvre', 'anais.lefevre@example.fr'],
  ['Noah Smith', 'noah.smith@example.com'],
];

/** SKU (text, leading zeros kept), name, category, price, in stock. */
const PRODUCTS: [string, string, string, number, boolean][] = [
  ['001', 'Desk Lamp', 'Lighting', 39.99, true],
  ['002', 'Standing Desk', 'Furniture', 549, true],
  ['003', 'Ergonomic Chair', 'Furniture', 329.5, false],
  ['004', 'Monitor Arm', 'Accessories', 89.9, true],
  ['005', 'USB-C Hub', 'Electronics', 45, true],
  ['006', 'Mechanical Keyboard', 'Electronics', 129, true],
  ['007', 'Wireless Mouse', 'Electronics', 29.99, true],
  ['008', 'Cable Tray', 'Accessories', 24.5, false],
  ['009', 'Notebook (A5, dotted)', 'Stationery', 12.75, true],
  ['010', 'Fountain Pen', 'Stationery', 58, true],
  ['011', 'Desk Mat', 'Accessories', 34, true],
  ['012', 'Webcam 4K', 'Electronics', 149.99, false],
  ['013', 'Noise-Cancelling Headphones', 'Electronics', 299, true],
  ['014', 'Plant Pot', 'Decor', 18.2, true],
  ['015', 'Whiteboard 90×60', 'Office', 79, true],
];

const NOTES = [
  'Gift wrap, please',
  'Leave at the front desk',
  'Call before delivery',
  'Fragile — handle with care',
  'Invoice to accounts@',
];

const HEADER_STYLE: CellStyle = { bold: true, color: 'FFFFFFFF', fill: 'FF2F5597', verticalAlign: 'center' };

/** A tab whose first row is the header: styled, frozen, and the column widths and styles given with it. */
function tab(
  name: string,
  columns: { header: string; width: number; numFmt?: string }[],
  rows: NewCell[][],
): NewTab {
  return {
    name,
    columns: columns.map(({ width, numFmt }) => ({ width, ...(numFmt ? { style: { numFmt } } : {}) })),
    rows: [columns.map((c) => c.header), ...rows],
    headerStyle: HEADER_STYLE,
    frozenRows: 1,
  };
}

export function buildDemoWorkbook(): NewWorkbook {
  const random = seededRandom(20240301);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

  const orders: NewCell[][] = [];
  const firstDay = Date.UTC(2024, 0, 2);
  for (let i = 1; i <= ORDER_COUNT; i++) {
    const [customer, email] = pick(CUSTOMERS);
    const [, product, , price] = pick(PRODUCTS);
    const quantity = 1 + Math.floor(random() * 5);
    const row = i + 1;
    // Orders arrive roughly in date order through the first half of 2024.
    const date = new Date(firstDay + Math.floor(((i - 1) * 180) / ORDER_COUNT + random() * 2) * 86_400_000);
    const note = random() < 0.12 ? pick(NOTES) : null;
    orders.push([
      `ORD-${String(i).padStart(4, '0')}`,
      customer,
      email,
      product,
      quantity,
      price,
      { formula: `E${row}*F${row}`, result: Math.round(quantity * price * 100) / 100 },
      date,
      date.getTime() < Date.UTC(2024, 5, 1) ? random() < 0.9 : random() < 0.3,
      note,
    ]);
  }

  return {
    creator: 'SheetPort',
    created: new Date(Date.UTC(2024, 0, 1)),
    tabs: [
      tab(
        'Orders',
        [
          { header: 'Order ID', width: 12 },
          { header: 'Customer', width: 24 },
          { header: 'Email', width: 30 },
          { header: 'Product', width: 28 },
          { header: 'Quantity', width: 10 },
          { header: 'Unit Price', width: 12, numFmt: CURRENCY },
          { header: 'Total', width: 12, numFmt: CURRENCY },
          { header: 'Order Date', width: 12, numFmt: 'yyyy-mm-dd' },
          { header: 'Shipped', width: 10 },
          { header: 'Notes', width: 32 },
        ],
        orders,
      ),
      tab(
        'Products',
        [
          { header: 'SKU', width: 8 },
          { header: 'Name', width: 30 },
          { header: 'Category', width: 14 },
          { header: 'Price', width: 10, numFmt: CURRENCY },
          { header: 'In Stock', width: 10 },
        ],
        PRODUCTS.map((p) => [...p]),
      ),
    ],
  };
}

/** Write the demo workbook to `filePath` (replacing any file there); 0600 like every file of the data dir. */
export async function createDemoWorkbook(filePath: string): Promise<void> {
  await fs.writeFile(filePath, newWorkbook(buildDemoWorkbook()), { mode: PRIVATE_FILE_MODE });
  await fs.chmod(filePath, PRIVATE_FILE_MODE);
}
