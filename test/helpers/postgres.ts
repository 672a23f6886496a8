/**
 * A fresh PostgreSQL database per call, on the test run's cluster (test/global-setup.ts): a suite gets a database
 * nobody else writes to, and the URL to give `SHEETPORT_DATABASE_URL` or the store. Dropped when the run's
 * cluster goes.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export function pgAdminUrl(): string {
  const url = inject('pgAdminUrl');
  if (!url)
    throw new Error('no test PostgreSQL: run the suites with vitest (test/global-setup.ts starts one)');
  return url;
}

/** Creates an empty database and returns its URL. */
export async function freshDatabase(): Promise<string> {
  const admin = pgAdminUrl();
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A secrets key for team mode's stores in tests (any text of 16+ characters). */
export const TEST_SECRET_KEY = 'test-team-secret-key-0123456789';
