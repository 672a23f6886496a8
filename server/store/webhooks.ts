import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type {
  CreateWebhookInput,
  WebhookChange,
  WebhookEvent,
  WebhookRecord,
  WebhookStatus,
  Webhooks,
} from '../repositories/webhooks.ts';
import { type SecretBox, sealContext } from '../secrets/at-rest.ts';
import { secretsOf } from '../secrets/db-binding.ts';

interface Row {
  id: string;
  url: string;
  spreadsheet_id: string;
  sheet_name: string;
  source_sheet_id: string;
  events: string;
  status: WebhookStatus;
  api_key_id: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS =
  'id, url, spreadsheet_id, sheet_name, source_sheet_id, events, status, api_key_id, created_at, updated_at';

/** The webhooks table's row, columns and mapping: PostgreSQL's store (store-pg/webhooks.ts) reads the same. */
export type { Row as WebhookRow };
export { COLUMNS as WEBHOOK_COLUMNS, toRecord as toWebhookRecord };

function toRecord(row: Row): WebhookRecord {
  return {
    id: row.id,
    url: row.url,
    spreadsheetId: row.spreadsheet_id,
    sheetName: row.sheet_name,
    sourceSheetId: row.source_sheet_id,
    events: JSON.parse(row.events) as WebhookEvent[],
    status: row.status,
    apiKeyId: row.api_key_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * The SQLite implementation of Webhooks (repositories/webhooks.ts). forTab, renameTab and nextTimestamp are
 * synchronous and outside the interface: the change recorder calls them inside its own SQLite transaction.
 * hasAnyNow is the synchronous hasAny the wiring gives the sources (context.ts).
 */
export class WebhookStore implements Webhooks {
  readonly #clock: () => Date;
  /** Secrets are sealed at rest with the data key (secrets/at-rest.ts); only this class sees them in clear. */
  readonly #box: SecretBox;
  readonly #stmts;

  constructor(
    db: Database.Database,
    clock: () => Date = () => new Date(),
    box: SecretBox = secretsOf(db).box,
  ) {
    this.#clock = clock;
    this.#box = box;
    this.#stmts = {
      insert: db.prepare(
        `INSERT INTO webhooks (${COLUMNS}, secret) VALUES
         (@id, @url, @spreadsheet_id, @sheet_name, @source_sheet_id, @events, @status, @api_key_id, @created_at, @updated_at, @secret)`,
      ),
      get: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM webhooks WHERE id = ?`),
      list: db.prepare<[], Row>(`SELECT ${COLUMNS} FROM webhooks ORDER BY created_at, rowid`),
      anyFor: db.prepare<[string], number>('SELECT 1 FROM webhooks WHERE spreadsheet_id = ? LIMIT 1').pluck(),
      forTab: db.prepare<[string, string], Row>(
        `SELECT ${COLUMNS} FROM webhooks WHERE spreadsheet_id = ? AND source_sheet_id = ? ORDER BY created_at, rowid`,
      ),
      renameTab: db.prepare<[string, string, string, string]>(
        'UPDATE webhooks SET sheet_name = ? WHERE spreadsheet_id = ? AND source_sheet_id = ? AND sheet_name != ?',
      ),
      update: db.prepare(
        'UPDATE webhooks SET url = @url, events = @events, status = @status, updated_at = @updated_at WHERE id = @id',
      ),
      remove: db.prepare<[string]>('DELETE FROM webhooks WHERE id = ?'),
      secret: db.prepare<[string], string>('SELECT secret FROM webhooks WHERE id = ?').pluck(),
      setSecret: db.prepare<[string, string, string]>(
        'UPDATE webhooks SET secret = ?, updated_at = ? WHERE id = ?',
      ),
      lastTimestamp: db
        .prepare<[string], number>('SELECT last_timestamp_ms FROM webhooks WHERE id = ?')
        .pluck(),
      setLastTimestamp: db.prepare<[number, string]>(
        'UPDATE webhooks SET last_timestamp_ms = ? WHERE id = ?',
      ),
    };
  }

  /** Register a webhook with its secret (never returned by a read; see webhooks/register.ts). */
  async create(input: CreateWebhookInput): Promise<WebhookRecord> {
    const id = `wh_${randomBytes(9).toString('base64url')}`;
    const secret = input.secret;
    const now = this.#clock().toISOString();
    this.#stmts.insert.run({
      id,
      url: input.url,
      spreadsheet_id: input.spreadsheetId,
      sheet_name: input.sheetName,
      source_sheet_id: input.sourceSheetId,
      events: JSON.stringify(input.events),
      status: 'active',
      api_key_id: input.apiKeyId,
      created_at: now,
      updated_at: now,
      secret: this.#box.seal(secret, sealContext.webhookSecret(id)),
    });
    return this.#get(id)!;
  }

  async get(id: string): Promise<WebhookRecord | null> {
    return this.#get(id);
  }

  #get(id: string): WebhookRecord | null {
    const row = this.#stmts.get.get(id);
    return row ? toRecord(row) : null;
  }

  async list(): Promise<WebhookRecord[]> {
    return this.#stmts.list.all().map(toRecord);
  }

  /** Whether any webhook, paused ones included, is registered on a tab of this spreadsheet. */
  async hasAny(spreadsheetId: string): Promise<boolean> {
    return this.hasAnyNow(spreadsheetId);
  }

  /** `hasAny` answered at once, outside the interface: a source asks it synchronously between its checks. */
  hasAnyNow(spreadsheetId: string): boolean {
    return this.#stmts.anyFor.get(spreadsheetId) !== undefined;
  }

  /** Every webhook on a tab, paused ones included (their notifications queue until they resume). */
  forTab(spreadsheetId: string, sourceSheetId: string): WebhookRecord[] {
    return this.#stmts.forTab.all(spreadsheetId, sourceSheetId).map(toRecord);
  }

  /** The tab was renamed: every webhook on it shows the new name. Call inside the recording transaction. */
  renameTab(spreadsheetId: string, sourceSheetId: string, name: string): number {
    return this.#stmts.renameTab.run(name, spreadsheetId, sourceSheetId, name).changes;
  }

  async update(id: string, change: WebhookChange): Promise<WebhookRecord | null> {
    const current = this.#get(id);
    if (!current) return null;
    this.#stmts.update.run({
      id,
      url: change.url ?? current.url,
      events: JSON.stringify(change.events ?? current.events),
      status: change.status ?? current.status,
      updated_at: this.#clock().toISOString(),
    });
    return this.#get(id);
  }

  async remove(id: string): Promise<boolean> {
    return this.#stmts.remove.run(id).changes > 0;
  }

  /** Replace the secret; deliveries signed from now on use it (retries of older ones too). False: no such webhook. */
  async rotateSecret(id: string, secret: string): Promise<boolean> {
    if (!this.#get(id)) return false;
    this.#stmts.setSecret.run(
      this.#box.seal(secret, sealContext.webhookSecret(id)),
      this.#clock().toISOString(),
      id,
    );
    return true;
  }

  async secretOf(id: string): Promise<string | null> {
    const stored = this.#stmts.secret.get(id);
    return stored === undefined ? null : this.#box.open(stored, sealContext.webhookSecret(id));
  }

  /**
   * A payload timestamp for this webhook, strictly after the previous one (bumped by 1 ms when two would be
   * equal), so `webhook_id` + `timestamp` is a sound deduplication key. Call inside the enqueueing transaction.
   */
  nextTimestamp(id: string, nowMs: number): number {
    const last = this.#stmts.lastTimestamp.get(id) ?? 0;
    const ts = Math.max(nowMs, last + 1);
    this.#stmts.setLastTimestamp.run(ts, id);
    return ts;
  }
}
