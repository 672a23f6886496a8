/**
 * The webhooks table in PostgreSQL: the statements of repositories/rules/webhooks.ts. `hasAnyNow` answers from
 * the instance's set of watched spreadsheets (webhooks-watched.ts); a registration holds its spreadsheet's
 * connection row, so a removal under way on another instance goes first (it locks the row for update).
 */
import {
  WEBHOOK_COLUMNS,
  type WebhookRow,
  type WebhookStatements,
  type WebhookUpdate,
} from '../repositories/rules/webhooks.ts';
import { CHANNELS } from './channels.ts';
import type { Queryable } from './pool.ts';
import type { PgRegistry } from './registry.ts';
import { RegistryStatements } from './registry-statements.ts';
import type { AfterCommit, Bind } from './transactional.ts';
import type { WatchedSpreadsheets } from './webhooks-watched.ts';

export function pgWebhookStatements(
  registry: PgRegistry,
  watched: WatchedSpreadsheets,
): Bind<WebhookStatements> {
  return (db, after) => new PgWebhookStatements(db, after, registry, watched);
}

class PgWebhookStatements extends RegistryStatements implements WebhookStatements {
  readonly #watched: WatchedSpreadsheets;

  constructor(db: Queryable, after: AfterCommit, registry: PgRegistry, watched: WatchedSpreadsheets) {
    super(db, after, registry);
    this.#watched = watched;
  }

  async holdConnection(spreadsheetId: string): Promise<void> {
    await this.db.query('SELECT 1 FROM connections WHERE id = $1 FOR SHARE', [spreadsheetId]);
  }

  async insert(row: WebhookRow, sealedSecret: string): Promise<void> {
    await this.db.query(
      `INSERT INTO webhooks (${WEBHOOK_COLUMNS}, secret) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        row.id,
        row.url,
        row.spreadsheet_id,
        row.sheet_name,
        row.source_sheet_id,
        row.events,
        row.condition,
        row.status,
        row.api_key_id,
        row.created_at,
        row.updated_at,
        sealedSecret,
      ],
    );
  }

  async byId(id: string, lock = false): Promise<WebhookRow | undefined> {
    const { rows } = await this.db.query<WebhookRow>(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0];
  }

  async list(): Promise<WebhookRow[]> {
    const { rows } = await this.db.query<WebhookRow>(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY created_at, seq`,
    );
    return rows;
  }

  async hasAny(spreadsheetId: string): Promise<boolean> {
    const { rowCount } = await this.db.query('SELECT 1 FROM webhooks WHERE spreadsheet_id = $1 LIMIT 1', [
      spreadsheetId,
    ]);
    return (rowCount ?? 0) > 0;
  }

  /** From memory: at most about a second old. */
  hasAnyNow(spreadsheetId: string): boolean {
    return this.#watched.has(spreadsheetId);
  }

  async update(id: string, change: WebhookUpdate): Promise<void> {
    await this.db.query(
      'UPDATE webhooks SET url = $1, events = $2, condition = $3, status = $4, updated_at = $5 WHERE id = $6',
      [change.url, change.events, change.condition, change.status, change.updated_at, id],
    );
  }

  /** Its deliveries go with it (migration 2's trigger). */
  async remove(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM webhooks WHERE id = $1', [id]);
    return (rowCount ?? 0) > 0;
  }

  async setSecret(id: string, sealed: string, updatedAt: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      'UPDATE webhooks SET secret = $1, updated_at = $2 WHERE id = $3',
      [sealed, updatedAt, id],
    );
    return (rowCount ?? 0) > 0;
  }

  async sealedSecret(id: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ secret: string }>('SELECT secret FROM webhooks WHERE id = $1', [
      id,
    ]);
    return rows[0]?.secret;
  }

  registryChanged(): Promise<void> {
    return this.registry.changed(this.db, this.after);
  }

  /** Every instance's worker looks (NOTIFY, delivered as this commits). */
  async deliveriesChanged(): Promise<void> {
    await this.db.query('SELECT pg_notify($1, $2)', [CHANNELS.deliveries, '']);
  }
}
