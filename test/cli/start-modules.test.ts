/**
 * What a start loads: `sheetport serve`, through a start, a read and a write, never loads Node's bundled fetch
 * (undici), which an ES import of `node:http` pulls in at every start for classes the service never uses (about
 * 30 ms: server/lib/node-http.ts). Seen from inside the real process: a preloaded script writes the main thread's
 * list of Node's own modules loaded when the process exits.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyJson, cliJson, startServe } from '../helpers/cli.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-start-modules-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a start of sheetport serve', () => {
  it('loads no undici through a read and a write', async () => {
    const csv = path.join(dir, 'team.csv');
    await writeFile(csv, 'name,age\nAnn,31\n');
    const connection = await cliJson<AnyJson>(['connect', csv], { dataDir: dir });
    const { key } = await cliJson<AnyJson>(['keys', 'create', '--scope', 'read_write'], { dataDir: dir });
    const loaded = path.join(dir, 'loaded.json');
    const preload = path.join(dir, 'preload.cjs');
    await writeFile(
      preload,
      `const { isMainThread } = require('node:worker_threads');
if (isMainThread) process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(process.moduleLoadList)));
`,
    );
    const server = await startServe(dir, { env: { NODE_OPTIONS: `--require ${preload}` } });
    const rows = `${server.url}/v1/sheets/${connection.sheets[0].sheet_id}/rows`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    expect((await fetch(rows, { headers })).status).toBe(200);
    const added = await fetch(rows, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Bob', age: 25 }),
    });
    expect(added.status).toBe(201);
    expect(await server.stop('SIGTERM')).toBe(0);

    const modules = JSON.parse(await readFile(loaded, 'utf8')) as string[];
    expect(modules.some((name) => name.includes('internal/http'))).toBe(true); // the list is the real one
    expect(modules.filter((name) => name.includes('undici'))).toEqual([]);
  }, 60_000);
});
