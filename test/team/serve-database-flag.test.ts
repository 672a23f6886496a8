/**
 * `sheetport serve --database URL`: team mode chosen by the flag alone (the secrets key from the environment), as
 * on a machine where SHEETPORT_DATABASE_URL is not set. A key made by the CLI against that database works on it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type AnyJson, cliJson, type RunningServe, startCli } from '../helpers/cli.ts';
import { writeCsv } from '../helpers/fixtures.ts';
import { freshDatabase, TEST_SECRET_KEY } from '../helpers/postgres.ts';

let dir: string | undefined;
let server: RunningServe | undefined;

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('serve --database', () => {
  it('serves the team database named by the flag, with the records the CLI made there', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-serve-database-'));
    const databaseUrl = await freshDatabase();
    const team = { SHEETPORT_DATABASE_URL: databaseUrl, SHEETPORT_SECRET_KEY: TEST_SECRET_KEY };
    const file = await writeCsv(dir, 'people.csv', 'Name,Age\nAnn,31\n');
    const admin = path.join(dir, 'admin');
    const connected = await cliJson<AnyJson>(['connect', file, '--json'], { env: team, dataDir: admin });
    const made = await cliJson<AnyJson>(['keys', 'create', '--json'], { env: team, dataDir: admin });

    const started = await startCli(['serve', '--database', databaseUrl, '--port', '0', '--json'], {
      env: { SHEETPORT_SECRET_KEY: TEST_SECRET_KEY },
      dataDir: path.join(dir, 'instance'),
      quiet: true,
    });
    server = { ...started, url: (JSON.parse(started.line) as { url: string }).url };
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const res = await fetch(`${server.url}/api/spreadsheets/${connected.user_key}/people`, {
      headers: { authorization: `Bearer ${made.key}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ Name: 'Ann', Age: 31 }]);
  });
});
