/**
 * The query benchmark's cases, each spelled three ways for the same answer: SheetPort's `where` and aggregates
 * (`/v1`), json-server 0.17.4's operators (`_gte`, `_lte`, repeated fields for OR, `_like`), and SQL on an
 * unindexed SQLite table. json-server cannot group: its user fetches every row and groups them in the client.
 */
import { type SqliteTable, sqlitePage, sqliteUpsert } from './sqlite-table.ts';

export interface Answer {
  /** Rows matched (list cases) or groups (the group-by), for checking that all three agree. */
  count: number;
}

export interface QueryCase {
  name: string;
  /** The `/v1/sheets/{id}` path after the sheet (with its query string). */
  sheetport: string;
  /** json-server's path after `/rows` and its query string. */
  jsonServer: string;
  sqlite(db: SqliteTable): Answer;
}

const FIRST_ID = 100_001;

const CUSTOMERS = [
  'Ada Lovelace',
  'Grace Hopper',
  'Alan Turing',
  'Edsger Dijkstra',
  'Barbara Liskov',
  'Donald Knuth',
];

/**
 * The cases, the `variant`-th time: each variant asks with other literals (another range, two other customers,
 * another needle), so a repeat finds the column's index built but its answer not cached.
 */
export function queryCases(rows: number, variant = 0): QueryCase[] {
  const low = FIRST_ID + Math.floor(rows / 3) + variant * 1_000;
  const high = low + 999;
  const [one, two] = [CUSTOMERS[variant % 6]!, CUSTOMERS[(variant + 1) % 6]!];
  const needle = `turing${4 + variant}`;
  const enc = encodeURIComponent;
  return [
    {
      name: 'selective range (1,000 rows by `between`)',
      sheetport: `/rows?limit=100&where=${enc(`"Order ID" between ${low} and ${high}`)}`,
      jsonServer: `?_page=1&_limit=100&${enc('Order ID')}_gte=${low}&${enc('Order ID')}_lte=${high}`,
      sqlite: (db) => ({ count: sqlitePage(db, '"Order ID" BETWEEN ? AND ?', [low, high]).total }),
    },
    {
      name: '`or` of two equalities',
      sheetport: `/rows?limit=100&where=${enc(`Customer = '${one}' or Customer = '${two}'`)}`,
      jsonServer: `?_page=1&_limit=100&Customer=${enc(one)}&Customer=${enc(two)}`,
      sqlite: (db) => ({ count: sqlitePage(db, 'Customer = ? OR Customer = ?', [one, two]).total }),
    },
    {
      name: '`contains`',
      sheetport: `/rows?limit=100&where=${enc(`Email contains '${needle}'`)}`,
      jsonServer: `?_page=1&_limit=100&Email_like=${needle}`,
      sqlite: (db) => ({ count: sqlitePage(db, 'Email LIKE ?', [`%${needle}%`]).total }),
    },
    {
      name: 'group-by count + sum',
      sheetport: `/aggregate?group_by=Region&metrics=${enc('count,sum(Quantity)')}`,
      jsonServer: '',
      sqlite: (db) => ({
        count: db.prepare('SELECT Region, count(*), sum(Quantity) FROM orders GROUP BY Region').all().length,
      }),
    },
  ];
}

/** Data rows an .xlsx tab holds at most (Excel's 1,048,576 rows, less the header). */
const MAX_DATA_ROWS = 1_048_575;

/** How many of an upsert's 100 rows are new: 50, or none on a tab the format has no room left in. */
export const newRowsOf = (rows: number): number => (rows + 200 <= MAX_DATA_ROWS ? 50 : 0);

/**
 * The `round`-th upsert's 100 rows: existing orders get a new quantity, and `newRowsOf(rows)` new orders are
 * added (a full-size tab has no room for them: all 100 are updates there).
 */
export function upsertRows(rows: number, round: number): Record<string, unknown>[] {
  const fresh = newRowsOf(rows);
  const existing = Array.from({ length: 100 - fresh }, (_, k) => ({
    'Order ID': FIRST_ID + ((k * 7_919 + round * 13) % rows),
    Quantity: 100 + round,
  }));
  const added = Array.from({ length: fresh }, (_, k) => ({
    'Order ID': 9_500_000 + round * 100 + k,
    Customer: 'Upsert Bench',
    Email: 'upsert@example.com',
    Region: 'North',
    Product: 'Widget',
    Quantity: 1,
  }));
  return [...existing, ...added];
}

export { sqliteUpsert };
