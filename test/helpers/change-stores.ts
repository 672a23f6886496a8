/**
 * The change stores (change log, recording, baselines, outbox and its log) of either implementation, for suites
 * that run once per store kind (`describe.each(CHANGE_STORE_KINDS)`): SQLite in a fresh data dir, or PostgreSQL
 * on a fresh database of the test cluster. `openChangeStores('postgres', { databaseUrl })` opens another instance
 * on the same database (its own pool and LISTEN connection), as a second `sheetport serve` would; `another()`
 * does that on either kind (SQLite: another connection to the same data dir, as a second process would).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Baselines } from '../../server/repositories/baselines.ts';
import type { ChangeLog, ChangeRecording } from '../../server/repositories/change-log.ts';
import type { Deliveries } from '../../server/repositories/deliveries.ts';
import type { DeliveryLog } from '../../server/repositories/delivery-log.ts';
import type { WebhookRecord, Webhooks } from '../../server/repositories/webhooks.ts';
import { SqliteBaselines } from '../../server/store/baselines.ts';
import { openSqliteRepositories } from '../../server/store/sqlite-repositories.ts';
import { openChangeStores as openPgChangeStores } from '../../server/store-pg/change-stores.ts';
import { PgListener } from '../../server/store-pg/listener.ts';
import { migrate } from '../../server/store-pg/migrate.ts';
import { openPool, type Pool } from '../../server/store-pg/pool.ts';
import { registerWebhook } from '../../server/webhooks/register.ts';
import { queueDelivery, queuePgDelivery } from './outbox.ts';
import { freshDatabase } from './postgres.ts';

export type ChangeStoreKind = 'sqlite' | 'postgres';
export const CHANGE_STORE_KINDS: readonly ChangeStoreKind[] = ['sqlite', 'postgres'];

export interface TestWebhook {
  url?: string;
  spreadsheetId: string;
  sourceSheetId: string;
  sheetName?: string;
  events?: string[];
}

export interface ChangeStores {
  kind: ChangeStoreKind;
  /** Where another instance opens the same database (PostgreSQL only). */
  databaseUrl: string | null;
  /** Another holder of the same database: its own connections and in-memory state. */
  another(): Promise<ChangeStores>;
  changeLog: ChangeLog;
  changeRecording: ChangeRecording;
  baselines: Baselines;
  deliveries: Deliveries;
  deliveryLog: DeliveryLog;
  /** What the delivery worker reads of the registry: a webhook's URL and secret. */
  webhooks: Pick<Webhooks, 'get' | 'secretOf'>;
  /** A webhook on a tab, active, as the registry stores it; returns its id. */
  addWebhook(webhook: TestWebhook): Promise<string>;
  setWebhookStatus(id: string, status: 'active' | 'paused'): Promise<void>;
  removeWebhook(id: string): Promise<void>;
  /** Queue a notification due now (as the recording does); returns its id. */
  enqueue(webhookId: string, event: string, payload: string, nowMs: number): Promise<string>;
  /**
   * Rows of an SQL query both schemas answer alike (their table and column names are the same): for the few
   * assertions about what is stored rather than what the interfaces return.
   */
  rows<T>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}

export function openChangeStores(
  kind: ChangeStoreKind,
  options: { databaseUrl?: string } = {},
): Promise<ChangeStores> {
  return kind === 'sqlite' ? openSqlite(null) : openPostgres(options.databaseUrl);
}

/** `existing`: the data dir of stores opened already (they remove it when they close). */
async function openSqlite(existing: string | null): Promise<ChangeStores> {
  const dir = existing ?? mkdtempSync(path.join(os.tmpdir(), 'sheetport-change-stores-'));
  const repos = openSqliteRepositories(dir);
  return {
    kind: 'sqlite',
    databaseUrl: null,
    another: () => openSqlite(dir),
    changeLog: repos.changeLog,
    changeRecording: repos.changeRecording,
    baselines: new SqliteBaselines(repos.db),
    deliveries: repos.deliveries,
    deliveryLog: repos.deliveryLog,
    webhooks: repos.webhooks,
    async addWebhook(w) {
      const { record } = await registerWebhook(repos.webhooks, {
        url: w.url ?? 'https://hooks.example.com/in',
        spreadsheetId: w.spreadsheetId,
        sheetName: w.sheetName ?? 'S',
        sourceSheetId: w.sourceSheetId,
        events: (w.events ?? ['row.inserted', 'row.updated', 'row.deleted']) as never,
        apiKeyId: null,
      });
      return record.id;
    },
    async setWebhookStatus(id, status) {
      await repos.webhooks.update(id, { status });
    },
    async removeWebhook(id) {
      await repos.webhooks.remove(id);
    },
    async enqueue(webhookId, event, payload, nowMs) {
      return queueDelivery(repos.db, webhookId, event, payload, nowMs);
    },
    async rows<T>(sql: string) {
      const statement = repos.db.prepare(sql);
      if (statement.reader) return statement.all() as T[];
      statement.run();
      return [];
    },
    async close() {
      repos.close();
      if (!existing) rmSync(dir, { recursive: true, force: true });
    },
  };
}

let webhookCount = 0;

async function openPostgres(existing: string | undefined): Promise<ChangeStores> {
  const databaseUrl = existing ?? (await freshDatabase());
  const pool = openPool(databaseUrl);
  await migrate(pool);
  const listener = new PgListener(databaseUrl);
  await listener.start();
  const stores = openPgChangeStores(pool, listener);
  return {
    kind: 'postgres',
    databaseUrl,
    another: () => openPostgres(databaseUrl),
    ...stores,
    webhooks: registryReader(pool),
    async addWebhook(w) {
      const id = `wh_test${++webhookCount}_${Date.now().toString(36)}`;
      const at = new Date().toISOString();
      await pool.query(
        `INSERT INTO webhooks (id, url, spreadsheet_id, sheet_name, source_sheet_id, events, secret, status,
           api_key_id, created_at, updated_at, last_timestamp_ms)
         VALUES ($1, $7, $2, $3, $4, $5, 'not-sealed-test-secret', 'active', NULL, $6, $6, 0)`,
        [
          id,
          w.spreadsheetId,
          w.sheetName ?? 'S',
          w.sourceSheetId,
          JSON.stringify(w.events ?? ['row.inserted', 'row.updated', 'row.deleted']),
          at,
          w.url ?? 'https://hooks.example.com/in',
        ],
      );
      return id;
    },
    async setWebhookStatus(id, status) {
      await pool.query('UPDATE webhooks SET status = $1 WHERE id = $2', [status, id]);
    },
    async removeWebhook(id) {
      await pool.query('DELETE FROM webhooks WHERE id = $1', [id]);
    },
    enqueue: (webhookId, event, payload, nowMs) => queuePgDelivery(pool, webhookId, event, payload, nowMs),
    async rows<T>(sql: string) {
      return (await pool.query(sql)).rows as T[];
    },
    async close() {
      await listener.close();
      await pool.end();
    },
  };
}

/**
 * The URL and secret of a webhook, read by plain SQL: what the delivery worker needs of the registry, whose
 * PostgreSQL class is composed with these stores elsewhere. Only the fields the worker reads are filled in.
 */
function registryReader(pool: Pool): Pick<Webhooks, 'get' | 'secretOf'> {
  return {
    async get(id) {
      const { rows } = await pool.query<{ id: string; url: string }>(
        'SELECT id, url FROM webhooks WHERE id = $1',
        [id],
      );
      return rows[0] ? ({ id: rows[0].id, url: rows[0].url } as WebhookRecord) : null;
    },
    async secretOf(id) {
      const { rows } = await pool.query<{ secret: string }>('SELECT secret FROM webhooks WHERE id = $1', [
        id,
      ]);
      return rows[0]?.secret ?? null;
    },
  };
}
