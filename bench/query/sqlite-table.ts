/**
 * The rows in SQLite, as a user who loads a sheet into a database to query it would have them: an in-memory
 * table of the same columns and values (better-sqlite3), no index. Each query is what that user would write.
 */
import Database from 'better-sqlite3';
import { SCALE_COLUMNS, scaleRows } from '../scale/scale-data.ts';

export type SqliteTable = Database.Database;

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
export const COLUMNS = SCALE_COLUMNS.map((c) => quoted(c.name));

export function loadSqlite(count: number): SqliteTable {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE orders (${COLUMNS.join(', ')})`);
  const insert = db.prepare(`INSERT INTO orders VALUES (${COLUMNS.map(() => '?').join(', ')})`);
  const load = db.transaction(() => {
    for (const row of scaleRows(count)) {
      insert.run(row.map((v) => (typeof v === 'boolean' ? Number(v) : v)));
    }
  });
  load();
  return db;
}

/** A page of 100 matching rows and how many match in all: what a list route answers. */
export function sqlitePage(
  db: SqliteTable,
  where: string,
  params: unknown[],
): { total: number; rows: unknown[] } {
  const rows = db.prepare(`SELECT * FROM orders WHERE ${where} LIMIT 100`).all(...params);
  const total = db.prepare(`SELECT count(*) AS n FROM orders WHERE ${where}`).get(...params) as { n: number };
  return { total: total.n, rows };
}

/** Update by key, else insert, one row at a time in one transaction (there is no unique index to upsert on). */
export function sqliteUpsert(db: SqliteTable, rows: Record<string, unknown>[]): void {
  const key = quoted('Order ID');
  db.transaction(() => {
    for (const row of rows) {
      const names = Object.keys(row).filter((n) => n !== 'Order ID');
      const set = names.map((n) => `${quoted(n)} = ?`).join(', ');
      const values = names.map((n) => row[n]);
      const changed = db.prepare(`UPDATE orders SET ${set} WHERE ${key} = ?`).run(...values, row['Order ID']);
      if (changed.changes === 0) {
        const all = Object.keys(row);
        db.prepare(
          `INSERT INTO orders (${all.map(quoted).join(', ')}) VALUES (${all.map(() => '?').join(', ')})`,
        ).run(...all.map((n) => row[n]));
      }
    }
  })();
}
