import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseSqliteBinding, electronSqliteBuildPath } from '../../main/sqlite-binding.ts';
import { isNodeApiAddon, prepareElectronSqlite } from '../../scripts/electron-native.ts';
import { DEFAULT_HOST, startServer } from '../../server/index.ts';
import { checkouts, electronVersion, repo } from '../helpers/checkout.ts';

const loaded = createRequire(import.meta.url).cache;
const nodeAddon = (
  createRequire(path.join(repo, 'node_modules/better-sqlite3/lib/binding.js'))(
    path.join(repo, 'node_modules/better-sqlite3/lib/binding.js'),
  ) as { getPrebuildPath(): string }
).getPrebuildPath();
const { dir: temp, checkoutWith, remove } = checkouts('sheetport-native-');
afterAll(remove);

async function readOpenApi(url: string): Promise<number> {
  const res = await fetch(`${url}/openapi.json`);
  return res.status;
}

describe('better-sqlite3 for Electron and for Node', () => {
  it('inside Electron, the server opens SQLite with the prepared Electron build, not Node’s', async () => {
    const root = checkoutWith('electron-host', ['electron', 'better-sqlite3']);
    const prepared = await prepareElectronSqlite({ root });
    expect(prepared).toEqual({
      path: electronSqliteBuildPath(root, electronVersion),
      electronVersion,
      how: 'n-api',
    });
    expect(isNodeApiAddon(prepared.path)).toBe(true);
    // A second run finds it in the cache (keyed by Electron's version, stamped with better-sqlite3's).
    expect((await prepareElectronSqlite({ root })).how).toBe('cached');

    const choice = chooseSqliteBinding({
      versions: { ...process.versions, electron: electronVersion },
      appRoot: root,
      packaged: false,
    });
    expect(choice).toEqual({ kind: 'electron', path: prepared.path });
    if (choice.kind !== 'electron') return;

    const server = await startServer({
      dataDir: path.join(temp, 'electron-data'),
      port: 0,
      host: DEFAULT_HOST,
      requestLog: false,
      sqliteBinding: choice.path,
      log: () => {},
    });
    try {
      expect(await readOpenApi(server.url)).toBe(200);
      expect(await server.context.connections.list()).toEqual([]);
    } finally {
      await server.stop();
    }
    // The addon better-sqlite3 loaded is the Electron build's file; Node's prebuild was never loaded.
    expect(loaded[prepared.path]).toBeDefined();
    expect(loaded[nodeAddon]).toBeUndefined();
  });

  it('under Node (no process.versions.electron), or in the packaged app, better-sqlite3 loads its own addon', async () => {
    const root = checkoutWith('node-host', ['electron', 'better-sqlite3']);
    expect(chooseSqliteBinding({ versions: process.versions, appRoot: root, packaged: false })).toEqual({
      kind: 'default',
    });
    expect(
      chooseSqliteBinding({ versions: { electron: electronVersion }, appRoot: root, packaged: true }),
    ).toEqual({ kind: 'default' });

    const server = await startServer({
      dataDir: path.join(temp, 'node-data'),
      port: 0,
      host: DEFAULT_HOST,
      requestLog: false,
      log: () => {},
    });
    try {
      expect(await readOpenApi(server.url)).toBe(200);
    } finally {
      await server.stop();
    }
    expect(loaded[nodeAddon]).toBeDefined();
  });

  it('a missing Electron build is one line naming the command, before anything opens SQLite', () => {
    const root = checkoutWith('unprepared', ['electron', 'better-sqlite3']);
    const choice = chooseSqliteBinding({
      versions: { electron: electronVersion },
      appRoot: root,
      packaged: false,
    });
    expect(choice.kind).toBe('missing');
    if (choice.kind !== 'missing') return;
    expect(choice.message).not.toContain('\n');
    expect(choice.message).toContain(`Electron ${electronVersion}`);
    expect(choice.message).toContain('`npm run app:native`');
  });
});
