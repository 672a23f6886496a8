import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/store/db.ts';
import { WebhookStore } from '../../server/store/webhooks.ts';
import { registerWebhook, rotateWebhookSecret } from '../../server/webhooks/register.ts';

let dir: string;
let db: Database.Database;
let webhooks: WebhookStore;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-webhooks-'));
  db = openDatabase(dir);
  webhooks = new WebhookStore(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const input = {
  url: 'https://example.com/hook',
  spreadsheetId: 'wb_1',
  sheetName: 'S',
  sourceSheetId: '1',
  events: ['row.inserted' as const],
  apiKeyId: null,
};

describe('WebhookStore', () => {
  it('keeps payload timestamps unique and increasing per webhook, bumping by 1 ms', async () => {
    const { record } = await registerWebhook(webhooks, input);
    const other = (await registerWebhook(webhooks, input)).record;
    const t = Date.UTC(2026, 0, 1);
    expect(webhooks.nextTimestamp(record.id, t)).toBe(t);
    expect(webhooks.nextTimestamp(record.id, t)).toBe(t + 1);
    expect(webhooks.nextTimestamp(record.id, t - 50)).toBe(t + 2); // a clock step back never repeats one
    expect(webhooks.nextTimestamp(other.id, t)).toBe(t); // per webhook
    // and it survives a restart (a new store on the same database)
    expect(new WebhookStore(db).nextTimestamp(record.id, t)).toBe(t + 3);
  });

  it('shows the secret only at creation and rotation, signs with the current one', async () => {
    const { record, secret } = await registerWebhook(webhooks, input);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(JSON.stringify(await webhooks.get(record.id))).not.toContain(secret);
    const rotated = (await rotateWebhookSecret(webhooks, record.id))!;
    expect(rotated).not.toBe(secret);
    expect(await webhooks.secretOf(record.id)).toBe(rotated);
  });
});
