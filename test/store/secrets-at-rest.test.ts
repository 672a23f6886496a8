import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSecretsProvider } from '../../server/secrets/file-provider.ts';
import { SECRET_NAMES } from '../../server/secrets/provider.ts';
import { LEGACY_ADMIN_TOKEN_FILE, loadOrCreateAdminToken } from '../../server/store/admin-token.ts';
import { DB_FILE_NAME, migrate, openDatabase, userVersion } from '../../server/store/db.ts';
import { MIGRATIONS } from '../../server/store/migrations.ts';
import { sqliteRepositoriesOver } from '../../server/store/sqlite-repositories.ts';
import { registerWebhook, rotateWebhookSecret } from '../../server/webhooks/register.ts';

const SECRET = 'whsec_PlainTextSecretFromTheOldSchemaAAAAAAAAAAAA=';
const ANSWER = JSON.stringify({ webhook_id: 'wh_old', secret: SECRET, url: 'https://example.com/h' });
const LEGACY_TOKEN = `spa_${'t'.repeat(43)}`;

let root: string;
let dataDir: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-at-rest-'));
  dataDir = path.join(root, 'data');
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const dbFiles = () =>
  [DB_FILE_NAME, `${DB_FILE_NAME}-wal`, `${DB_FILE_NAME}-shm`].map((f) => path.join(dataDir, f));

/** Every byte SQLite keeps on disk for the database, as latin1 text to search. */
function rawBytes(): string {
  return dbFiles()
    .filter((f) => fs.existsSync(f))
    .map((f) => fs.readFileSync(f).toString('latin1'))
    .join('\n');
}

/**
 * A data dir as the previous version left it after a crash: schema 3, the webhook secret and the idempotent
 * answer in plaintext, part of it still in the WAL, every file 0644 in a 0755 folder, the admin token in its
 * own file.
 */
function oldDataDir(): void {
  const staging = path.join(root, 'staging');
  fs.mkdirSync(staging);
  const raw = new Database(path.join(staging, DB_FILE_NAME));
  raw.pragma('journal_mode = WAL');
  raw.pragma('wal_autocheckpoint = 0'); // the crash comes before any checkpoint
  migrate(raw, MIGRATIONS.slice(0, 3));
  raw
    .prepare(
      `INSERT INTO webhooks (id, url, spreadsheet_id, sheet_name, source_sheet_id, events, secret, status, api_key_id, created_at, updated_at)
       VALUES ('wh_old', 'https://example.com/h', 'wb_1', 'S', '1', '["row.inserted"]', ?, 'active', NULL, 'then', 'then')`,
    )
    .run(SECRET);
  raw
    .prepare(
      `INSERT INTO idempotency_keys (api_key_id, idem_key, fingerprint, state, status, content_type, body, created_at)
       VALUES ('key_1', 'idem-1', 'fp', 'done', 201, 'application/json', ?, ?)`,
    )
    .run(ANSWER, Date.now());
  fs.mkdirSync(dataDir, { mode: 0o755 });
  fs.chmodSync(dataDir, 0o755);
  for (const name of [DB_FILE_NAME, `${DB_FILE_NAME}-wal`, `${DB_FILE_NAME}-shm`]) {
    fs.copyFileSync(path.join(staging, name), path.join(dataDir, name)); // the files as the crash left them
    fs.chmodSync(path.join(dataDir, name), 0o644);
  }
  raw.close();
  fs.writeFileSync(path.join(dataDir, LEGACY_ADMIN_TOKEN_FILE), `${LEGACY_TOKEN}\n`, { mode: 0o644 });
}

describe('upgrading a database written before encryption at rest', () => {
  it('seals the old plaintext, scrubs it from every page of the file and the WAL, and keeps it usable', async () => {
    oldDataDir();
    expect(rawBytes()).toContain(SECRET); // the defect: plaintext on disk

    const db = openDatabase(dataDir);
    try {
      expect(userVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
      expect(rawBytes()).not.toContain(SECRET);
      expect(rawBytes()).not.toContain('PlainTextSecretFromTheOldSchema');
      expect(db.prepare("SELECT secret FROM webhooks WHERE id = 'wh_old'").pluck().get()).toMatch(/^sp1:/);
      expect(db.prepare('SELECT body FROM idempotency_keys').pluck().get()).toMatch(/^sp1:/);

      expect(await sqliteRepositoriesOver(db, dataDir).webhooks.secretOf('wh_old')).toBe(SECRET);
      expect(await sqliteRepositoriesOver(db, dataDir).idempotency.begin('key_1', 'idem-1', 'fp')).toEqual({
        state: 'replay',
        status: 201,
        contentType: 'application/json',
        body: ANSWER,
      });
      for (const file of dbFiles().filter((f) => fs.existsSync(f))) {
        expect(fs.statSync(file).mode & 0o777, file).toBe(0o600);
      }
    } finally {
      db.close();
    }
    expect(rawBytes()).not.toContain('PlainTextSecretFromTheOldSchema');
  });

  it('moves the admin token into the secrets provider, keeps its value and removes the old file', () => {
    oldDataDir();
    const db = openDatabase(dataDir);
    try {
      expect(loadOrCreateAdminToken(db, dataDir)).toBe(LEGACY_TOKEN);
      expect(fs.existsSync(path.join(dataDir, LEGACY_ADMIN_TOKEN_FILE))).toBe(false);
      expect(new FileSecretsProvider(dataDir).get(SECRET_NAMES.adminToken)).toBe(LEGACY_TOKEN);
      expect(loadOrCreateAdminToken(db, dataDir)).toBe(LEGACY_TOKEN); // and finds it there next time
    } finally {
      db.close();
    }
  });
});

describe('sealed values', () => {
  const input = {
    url: 'https://example.com/hook',
    spreadsheetId: 'wb_1',
    sheetName: 'S',
    sourceSheetId: '1',
    events: ['row.inserted' as const],
    apiKeyId: null,
  };

  it('new and rotated webhook secrets and stored answers never reach SQLite in plaintext', async () => {
    const db = openDatabase(dataDir);
    try {
      const webhooks = sqliteRepositoriesOver(db, dataDir).webhooks;
      const { record, secret } = await registerWebhook(webhooks, input);
      const rotated = (await rotateWebhookSecret(webhooks, record.id))!;
      const idem = sqliteRepositoriesOver(db, dataDir).idempotency;
      await idem.begin('key_1', 'k', 'fp');
      await idem.complete('key_1', 'k', 201, 'application/json', JSON.stringify({ secret: rotated }));
      db.pragma('wal_checkpoint(TRUNCATE)');
      const bytes = rawBytes();
      expect(bytes).not.toContain(secret.slice(6));
      expect(bytes).not.toContain(rotated.slice(6));
      expect(await webhooks.secretOf(record.id)).toBe(rotated);
    } finally {
      db.close();
    }
  });

  it('a sealed secret copied into another row does not open there', async () => {
    const db = openDatabase(dataDir);
    try {
      const webhooks = sqliteRepositoriesOver(db, dataDir).webhooks;
      const a = (await registerWebhook(webhooks, input)).record;
      const b = (await registerWebhook(webhooks, input)).record;
      db.prepare('UPDATE webhooks SET secret = (SELECT secret FROM webhooks WHERE id = ?) WHERE id = ?').run(
        a.id,
        b.id,
      );
      await expect(webhooks.secretOf(b.id)).rejects.toThrow(/cannot be decrypted/);
    } finally {
      db.close();
    }
  });

  it('a lost data key is an error naming the cause, not a fresh key that hides it', async () => {
    const db = openDatabase(dataDir);
    await registerWebhook(sqliteRepositoriesOver(db, dataDir).webhooks, input);
    db.close();
    new FileSecretsProvider(dataDir).delete(SECRET_NAMES.dataKey);
    expect(() => openDatabase(dataDir)).toThrow(/data key is missing from .*secrets\.json.*Restore/);
  });
});
