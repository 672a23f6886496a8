/** The shared LISTEN connection against a real PostgreSQL: a NOTIFY committed elsewhere reaches its listener. */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PgListener } from '../../server/store-pg/listener.ts';
import { freshDatabase } from '../helpers/postgres.ts';

const open: PgListener[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

describe('PgListener', () => {
  it('hears a NOTIFY sent by another connection once its transaction commits', async () => {
    const url = await freshDatabase();
    const listener = new PgListener(url);
    open.push(listener);
    const heard: (string | null)[] = [];
    listener.on('sheetport_recorded', (p) => heard.push(p));
    await listener.start();
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    await other.query('BEGIN');
    await other.query("SELECT pg_notify('sheetport_recorded', 'wb_1')");
    await new Promise((r) => setTimeout(r, 100));
    expect(heard).toEqual([]); // not before the commit
    await other.query('COMMIT');
    await other.end();
    await expect.poll(() => heard, { timeout: 2000 }).toEqual(['wb_1']);
  });

  it('refuses a channel name that is not a plain identifier', () => {
    expect(() => new PgListener('postgres://x').on('a;DROP', () => {})).toThrow(/invalid channel/);
  });
});
