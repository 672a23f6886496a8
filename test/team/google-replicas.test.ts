/**
 * Team mode with a Google spreadsheet (on the Sheets fake, over HTTP): two instances on one PostgreSQL database,
 * each with its own copy. Each instance is told to trust its copy for a minute (the Drive check's maximum age),
 * so only the word of a recording, heard through PostgreSQL, can make the second instance read again: a row
 * appended on one instance is read on the other at once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

let dir: string;
let a: Harness;
let b: Harness;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-team-google-'));
  const google = { maxAgeMs: 60_000 };
  a = await startHarness({ kind: 'google', store: 'postgres', google });
  b = await startHarness({ kind: 'google', store: 'postgres', google, databaseUrl: a.databaseUrl! });
});

afterAll(async () => {
  await b?.close();
  await a?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a Google spreadsheet served by two instances', () => {
  it('shows a row appended on one instance in the next read on the other, without waiting for Drive', async () => {
    const { connection } = await a.connectBook(await writePeopleWorkbook(dir));
    const names = async (h: Harness) => {
      const rows = (await (await h.fetch(rowsPath(connection, 'People', '?limit=100'))).json()) as {
        Name: string;
      }[];
      return rows.map((r) => r.Name);
    };
    expect(await names(b)).not.toContain('appended-on-a'); // b holds its copy now
    const res = await a.fetch(rowsPath(connection, 'People'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Name: 'appended-on-a' }),
    });
    expect(res.status).toBe(201);
    await expect.poll(() => names(b), { timeout: 2000, interval: 50 }).toContain('appended-on-a');
  });
});
