/**
 * Team mode's named secrets (PgSecrets) across two instances on one real PostgreSQL database: a set on one is read
 * by the other once the NOTIFY arrives; values are sealed in the table; the admin token stays per instance.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPgStore, type PgStore } from '../../server/store-pg/pg-store.ts';
import { freshDatabase, TEST_SECRET_KEY } from '../helpers/postgres.ts';

const open: PgStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function instance(url: string, secretKey = TEST_SECRET_KEY): Promise<PgStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-pg-instance-'));
  dirs.push(dataDir);
  const store = await openPgStore({ databaseUrl: url, secretKey, leaseTtlMs: 5000 }, { dataDir });
  open.push(store);
  return store;
}

describe('PgSecrets', () => {
  it('a secret set on one instance is read on another after the NOTIFY, and so is its removal', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    const b = await instance(url);
    expect(a.secrets.kind).toBe('database');
    expect(b.secrets.get('tunnel-authtoken')).toBeNull();

    a.secrets.set('tunnel-authtoken', 'ngrok-token-1');
    expect(a.secrets.get('tunnel-authtoken')).toBe('ngrok-token-1'); // at once where it was set
    await a.secrets.flush();
    await expect
      .poll(() => b.secrets.get('tunnel-authtoken'), { timeout: 2000, interval: 20 })
      .toBe('ngrok-token-1');

    b.secrets.set('tunnel-authtoken', 'ngrok-token-2');
    await b.secrets.flush();
    await expect
      .poll(() => a.secrets.get('tunnel-authtoken'), { timeout: 2000, interval: 20 })
      .toBe('ngrok-token-2');

    expect(a.secrets.delete('tunnel-authtoken')).toBe(true);
    expect(a.secrets.delete('tunnel-authtoken')).toBe(false);
    await a.secrets.flush();
    await expect.poll(() => b.secrets.get('tunnel-authtoken'), { timeout: 2000, interval: 20 }).toBeNull();
  });

  it('keeps values sealed with the team key, read back by a later start', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    a.secrets.set('google:me@example.com', '{"refresh_token":"1//very-secret"}');
    await a.secrets.flush();
    const { rows } = await a.pool.query('SELECT name, value FROM secrets');
    expect(rows).toHaveLength(1);
    expect(rows[0].value).toMatch(/^sp1:/);
    expect(rows[0].value).not.toContain('very-secret');
    const later = await instance(url);
    expect(later.secrets.get('google:me@example.com')).toBe('{"refresh_token":"1//very-secret"}');
  });

  it('refuses to start with another key than the one the secrets were sealed with', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    a.secrets.set('tunnel-authtoken', 'x');
    await a.secrets.flush();
    await expect(instance(url, 'another-team-key-0123456789')).rejects.toThrow(
      /SHEETPORT_SECRET_KEY is not the key/,
    );
  });

  it('many writes in a row land in order; flush waits for all of them', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    for (let i = 0; i < 20; i++) a.secrets.set('counter', String(i));
    await a.secrets.flush();
    const { rows } = await a.pool.query('SELECT count(*)::int AS n FROM secrets');
    expect(rows[0].n).toBe(1);
    const b = await instance(url);
    expect(b.secrets.get('counter')).toBe('19');
    expect(a.secrets.get('counter')).toBe('19');
  });
});

describe('openPgStore', () => {
  it('is ready once migrated, with every part wired', async () => {
    const store = await instance(await freshDatabase());
    expect(store.kind).toBe('postgres');
    await expect(store.ready()).resolves.toBeUndefined();
    await expect(store.changeLog.head()).resolves.toBe(0);
    expect(store.team?.instanceId).toMatch(/:\d+$/);
  });

  it('keeps the admin token per instance, in its own data dir, the same on every load', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    const b = await instance(url);
    const token = a.adminTokens.loadOrCreate();
    expect(token).toMatch(/^spa_/);
    expect(a.adminTokens.loadOrCreate()).toBe(token);
    expect(b.adminTokens.loadOrCreate()).not.toBe(token);
    const rotated = a.adminTokens.rotate();
    expect(rotated).not.toBe(token);
    expect(a.adminTokens.loadOrCreate()).toBe(rotated);
    expect(a.secrets.get('admin-token')).toBeNull(); // never in the shared database
  });
});
