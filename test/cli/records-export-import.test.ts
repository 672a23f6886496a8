/**
 * `sheetport export` from a data dir's SQLite and `sheetport import` into a fresh PostgreSQL database, with the
 * real CLI: keys (by their hashes, plans and allow-lists), connections, webhooks with their secrets and usage come
 * over unchanged, a key made before the export authenticates against the team's store, and a second import
 * changes nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteRepositories } from '../../server/store/sqlite-repositories.ts';
import { openPgStore, type PgStore } from '../../server/store-pg/pg-store.ts';
import { type AnyJson, cliFails, cliJson } from '../helpers/cli.ts';
import { freshDatabase, TEST_SECRET_KEY } from '../helpers/postgres.ts';

let dir: string;
let pg: PgStore | null = null;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-export-'));
});
afterEach(async () => {
  await pg?.close();
  pg = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

const NOW = Date.UTC(2026, 0, 15, 12);

/** A tray app's data dir with a bit of everything; what it holds, as the repositories read it. */
async function trayDataDir(dataDir: string) {
  const s = openSqliteRepositories(dataDir);
  try {
    const a = await s.connections.create({
      name: 'orders',
      sourceKind: 'workbook',
      idPrefix: 'wb_',
      location: path.join(dir, 'orders.xlsx'),
    });
    await s.connections.setPublicRead(a.spreadsheetId, true);
    await s.connections.create({
      name: 'team',
      sourceKind: 'google',
      idPrefix: 'gs_',
      location: '1AbCdEf',
      spreadsheetId: '1AbCdEf',
    });
    const limited = await s.keys.create({ name: 'ci', scope: 'read_write', connections: [a.spreadsheetId] });
    const big = await s.keys.create({ name: 'big', plan: 'enterprise', perSecond: 40, daily: 9000 });
    const revoked = await s.keys.create({ name: 'old', allowFormulas: true });
    await s.keys.revoke(revoked.record.id);
    await s.keys.touch(big.record.id);
    const hook = await s.webhooks.create({
      url: 'https://example.com/hook',
      spreadsheetId: a.spreadsheetId,
      sheetName: 'People',
      sourceSheetId: '1',
      events: ['row.inserted', 'row.deleted'],
      condition: { where: 'Age > 30', columns: ['Name'] },
      apiKeyId: limited.record.id,
      secret: 'whsec_the-signing-secret',
    });
    await s.webhooks.update(hook.id, { status: 'paused' });
    // The payload timestamp a recording would have left.
    s.db.prepare('UPDATE webhooks SET last_timestamp_ms = ? WHERE id = ?').run(NOW, hook.id);
    s.usage.countRequest(limited.record.id, NOW);
    s.usage.countRequest(limited.record.id, NOW);
    s.usage.countRefused(limited.record.id, NOW - 86_400_000, 'daily');
    await s.usage.flush();
    return {
      keys: { limited: limited.key, big: big.key, revoked: revoked.key },
      hookId: hook.id,
      subject: limited.record.id,
      view: {
        keys: await s.keys.list(),
        connections: await s.connections.list(),
        webhooks: await s.webhooks.list(),
        usage: await s.usage.history(limited.record.id, NOW),
      },
    };
  } finally {
    s.close();
  }
}

async function viewOf(store: PgStore, subject: string) {
  return {
    keys: await store.keys.list(),
    connections: await store.connections.list(),
    webhooks: await store.webhooks.list(),
    usage: await store.usage.history(subject, NOW),
  };
}

describe('sheetport export / import', () => {
  it('moves a data dir into a team database; a key made before authenticates there; twice changes nothing', async () => {
    const dataDir = path.join(dir, 'tray');
    const tray = await trayDataDir(dataDir);
    const file = path.join(dir, 'records.json');

    const exported = await cliJson<AnyJson>(['export', file], { dataDir });
    expect(exported).toMatchObject({ file, connections: 2, keys: 3, webhooks: 1, usage_days: 2 });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('whsec_the-signing-secret'); // in clear, for the importing side to re-seal
    for (const key of Object.values(tray.keys)) expect(text).not.toContain(key.slice(12)); // hashes only

    const url = await freshDatabase();
    const env = { SHEETPORT_DATABASE_URL: url, SHEETPORT_SECRET_KEY: TEST_SECRET_KEY };
    const first = await cliJson<AnyJson>(['import', file], { env, dataDir: path.join(dir, 'instance') });
    expect(first).toMatchObject({
      connections: { added: 2, present: 0 },
      keys: { added: 3, present: 0 },
      webhooks: { added: 1, present: 0 },
      usage: { added: 2, present: 0 },
    });

    pg = await openPgStore(
      { databaseUrl: url, secretKey: TEST_SECRET_KEY, leaseTtlMs: 5000 },
      { dataDir: path.join(dir, 'instance') },
    );
    expect(await viewOf(pg, tray.subject)).toEqual(tray.view);
    const found = await pg.keys.findByKey(tray.keys.limited);
    expect(found).toEqual(tray.view.keys.find((k) => k.name === 'ci'));
    expect(found?.connections).toEqual([tray.view.connections[0]?.spreadsheetId]);
    expect((await pg.keys.findByKey(tray.keys.revoked))?.revokedAt).not.toBeNull();
    expect(await pg.keys.findByKey(tray.keys.big)).toMatchObject({ plan: 'enterprise', perSecond: 40 });
    expect(await pg.webhooks.secretOf(tray.hookId)).toBe('whsec_the-signing-secret');
    const [sealed] = (await pg.pool.query('SELECT secret, last_timestamp_ms FROM webhooks')).rows;
    expect(sealed.secret).toMatch(/^sp1:/);
    expect(sealed.last_timestamp_ms).toBe(NOW);
    expect(pg.webhooks.hasAnyNow(tray.view.connections[0]!.spreadsheetId)).toBe(true);

    const again = await cliJson<AnyJson>(['import', file], { env });
    expect(again).toMatchObject({
      connections: { added: 0, present: 2 },
      keys: { added: 0, present: 3 },
      webhooks: { added: 0, present: 1 },
      usage: { added: 0, present: 2 },
    });
    expect(await viewOf(pg, tray.subject)).toEqual(tray.view);
    expect(await pg.webhooks.secretOf(tray.hookId)).toBe('whsec_the-signing-secret');
  });

  it('refuses clearly: an existing file, no team database, a file that is no export', async () => {
    const dataDir = path.join(dir, 'tray');
    await trayDataDir(dataDir);
    const file = path.join(dir, 'records.json');
    fs.writeFileSync(file, 'keep me');
    expect(await cliFails(['export', file], { dataDir })).toMatchObject({ code: 'conflict' });
    expect(fs.readFileSync(file, 'utf8')).toBe('keep me');
    expect(
      await cliFails(['export', path.join(dir, 'x.json')], { dataDir: path.join(dir, 'none') }),
    ).toMatchObject({ code: 'not_found' });

    const noTeam = await cliFails(['import', file], { env: { SHEETPORT_DATABASE_URL: undefined } });
    expect(noTeam).toMatchObject({ code: 'invalid_parameter' });
    expect(noTeam.message).toMatch(/SHEETPORT_DATABASE_URL/);

    const env = { SHEETPORT_DATABASE_URL: await freshDatabase(), SHEETPORT_SECRET_KEY: TEST_SECRET_KEY };
    expect(await cliFails(['import', file], { env })).toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringMatching(/not JSON/),
    });
  });
});
