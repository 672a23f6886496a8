import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyJson, cliJson, type RunningCli, startServe } from '../helpers/cli.ts';

let dir: string;
let server: RunningCli;
let url: string;

const cli = (...args: string[]) => cliJson<AnyJson>(args, { dataDir: dir });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-serve-'));
  ({ url, ...server } = await startServe(dir));
});
afterAll(async () => {
  await server.stop('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('sheetport serve with the CLI on the same data dir', () => {
  it('prints its URL, sees connections and keys the CLI adds while it runs, and stops on SIGTERM', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const csv = path.join(dir, 'team.csv');
    await writeFile(csv, 'name,age\nAnn,31\nBob,25\n');
    const connection = await cli('connect', csv);
    const { key } = await cli('keys', 'create', '--scope', 'read_write');
    const res = await fetch(`${url}/api/spreadsheets/${connection.user_key}/team?sort=age`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await res.json()).toEqual([
      { name: 'Bob', age: 25 },
      { name: 'Ann', age: 31 },
    ]);
    const keys = await cli('keys', 'list');
    await cli('keys', 'revoke', keys[0].id);
    const revoked = await fetch(`${url}/api/spreadsheets/${connection.user_key}/team`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(revoked.status).toBe(401);

    expect(await server.stop('SIGTERM')).toBe(0);
  });
});
