/**
 * Backups through the real write path: writes over HTTP to a local workbook keep the version each one replaces
 * under `<data dir>/backups/`, pruned to the newest 10, and a backup that cannot be made never fails the write.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../../server/app.ts';
import { type ContextOptions, createServiceContext } from '../../../server/context.ts';
import { closeServer, listen } from '../../../server/listen.ts';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { writeCsv, writePeopleWorkbook } from '../../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';

const VERSION = /^\d{8}T\d{9}Z-/;
const modeOf = (p: string) => fs.statSync(p).mode & 0o777;
const versionsIn = (folder: string) =>
  fs
    .readdirSync(folder)
    .filter((n) => VERSION.test(n))
    .sort();

describe('writes through the API', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('12 writes keep the 10 newest replaced versions (0600), the newest being the file before the last write', async () => {
    const file = await writePeopleWorkbook(h.dir, 'people.xlsx');
    const conn = await h.connect(file);
    let beforeLast = Buffer.alloc(0);
    for (let i = 1; i <= 12; i++) {
      beforeLast = await fsp.readFile(file);
      const res =
        i % 2
          ? await h.fetch(rowsPath(conn, 'People'), {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ Name: `n${i}` }),
            })
          : await h.fetch(rowsPath(conn, 'People', '/2'), {
              method: 'PUT',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ Age: i }),
            });
      expect(res.status, `write ${i}`).toBe(i % 2 ? 201 : 200);
    }

    const root = path.join(h.dir, 'data', 'backups');
    const folders = fs.readdirSync(root);
    expect(folders).toEqual([expect.stringMatching(/^[0-9a-f]{16}$/)]);
    const folder = path.join(root, folders[0]!);
    expect(JSON.parse(fs.readFileSync(path.join(folder, 'source.json'), 'utf8'))).toEqual({
      path: path.resolve(file),
    });
    // What pruning drops is removed behind the write's answer.
    await vi.waitFor(() => expect(versionsIn(folder)).toHaveLength(10));
    const versions = versionsIn(folder);
    for (const name of versions) {
      expect(name).toMatch(/^\d{8}T\d{9}Z-people\.xlsx$/);
      expect(modeOf(path.join(folder, name)), name).toBe(0o600);
    }
    expect(modeOf(root)).toBe(0o700);
    expect(modeOf(folder)).toBe(0o700);
    const newest = fs.readFileSync(path.join(folder, versions.at(-1)!));
    expect(newest.equals(beforeLast)).toBe(true);
    expect(newest.equals(fs.readFileSync(file))).toBe(false);
    // every kept version is a different state of the file: the 3rd to the 12th write's "before"
    expect(new Set(versions.map((n) => fs.readFileSync(path.join(folder, n)).toString('base64'))).size).toBe(
      10,
    );
  });

  it('a refused write (nothing written) keeps no version', async () => {
    const file = await writePeopleWorkbook(h.dir, 'refused.xlsx');
    const conn = await h.connect(file);
    const res = await h.fetch(rowsPath(conn, 'People'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Nmae: 'typo' }),
    });
    expect(res.status).toBe(400);
    const folders = fs.readdirSync(path.join(h.dir, 'data', 'backups'));
    for (const f of folders) {
      const source = JSON.parse(
        fs.readFileSync(path.join(h.dir, 'data', 'backups', f, 'source.json'), 'utf8'),
      );
      expect(source.path).not.toBe(path.resolve(file));
    }
  });
});

/** A real server like the harness's, with the context options (and log) a test chooses. */
async function startServer(options: Partial<ContextOptions> = {}) {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'sheetport-backups-http-'));
  const dataDir = path.join(dir, 'data');
  const logged: { message: string; err: unknown }[] = [];
  const context = createServiceContext({
    dataDir,
    log: (message, err) => logged.push({ message, err }),
    ...options,
  });
  const { app } = createApp(context);
  const { server, port } = await listen(app, 0, '127.0.0.1');
  const key = (
    await context.keys.create({
      name: 't',
      scope: 'read_write',
      plan: 'enterprise',
      perSecond: 1_000_000,
      daily: 1_000_000_000,
    })
  ).key;
  const connect = async (file: string): Promise<ConnectionRecord> =>
    await context.connections.create({
      name: path.basename(file),
      sourceKind: 'workbook',
      idPrefix: 'wb_',
      location: file,
    });
  const append = (conn: ConnectionRecord, sheet: string, row: unknown) =>
    fetch(`http://127.0.0.1:${port}${rowsPath(conn, sheet)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(row),
    });
  return {
    dir,
    dataDir,
    logged,
    connect,
    append,
    async close() {
      await closeServer(server);
      await context.close();
      // the tests below may leave a folder without write permission
      await fsp.chmod(path.join(dataDir, 'backups'), 0o700).catch(() => {});
      await fsp.rm(dir, { recursive: true, force: true });
    },
  };
}

describe('when no backup can be made', () => {
  let s: Awaited<ReturnType<typeof startServer>> | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('the write still lands (backups path taken by a file), and the failure is logged', async () => {
    s = await startServer();
    fs.mkdirSync(s.dataDir, { recursive: true });
    fs.writeFileSync(path.join(s.dataDir, 'backups'), 'not a folder'); // fails for root too
    // A blank line after the rows: the append rewrites the file (an append in place keeps no version).
    const file = await writeCsv(s.dir, 'orders.csv', 'Order,Qty\nA-1,2\n\n');
    const res = await s.append(await s.connect(file), 'orders', { Order: 'A-2', Qty: 5 });
    expect(res.status).toBe(201);
    expect(fs.readFileSync(file, 'utf8')).toBe('Order,Qty\nA-1,2\nA-2,5\n\n');
    expect(s.logged).toEqual([
      { message: expect.stringMatching(/Could not back up orders\.csv/), err: expect.any(Error) },
    ]);
  });

  it('keep: 0 turns backups off', async () => {
    s = await startServer({ backups: { keep: 0 } });
    const file = await writeCsv(s.dir, 'orders.csv', 'Order,Qty\nA-1,2\n');
    const res = await s.append(await s.connect(file), 'orders', { Order: 'A-2', Qty: 5 });
    expect(res.status).toBe(201);
    expect(fs.existsSync(path.join(s.dataDir, 'backups'))).toBe(false);
    expect(s.logged).toEqual([]);
  });
});
