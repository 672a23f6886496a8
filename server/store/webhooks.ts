/**
 * The webhooks table in SQLite: the statements of repositories/rules/webhooks.ts. Other processes sharing the
 * data dir read the file itself, so there is nothing to tell them; the delivery worker notices deliveries made
 * due elsewhere through SQLite's data_version.
 */
import type Database from 'better-sqlite3';
import {
  WEBHOOK_COLUMNS,
  type WebhookRow,
  type WebhookStatements,
  type WebhookUpdate,
} from '../repositories/rules/webhooks.ts';

export class SqliteWebhookStatements implements WebhookStatements {
  readonly #insert: Database.Statement<[WebhookRow & { secret: string }]>;
  readonly #byId: Database.Statement<[string], WebhookRow>;
  readonly #list: Database.Statement<[], WebhookRow>;
  readonly #anyFor: Database.Statement<[string], number>;
  readonly #update: Database.Statement<[WebhookUpdate & { id: string }]>;
  readonly #remove: Database.Statement<[string]>;
  readonly #secret: Database.Statement<[string], string>;
  readonly #setSecret: Database.Statement<[string, string, string]>;

  constructor(db: Database.Database) {
    this.#insert = db.prepare(
      `INSERT INTO webhooks (${WEBHOOK_COLUMNS}, secret) VALUES
       (@id, @url, @spreadsheet_id, @sheet_name, @source_sheet_id, @events, @condition, @status, @api_key_id, @created_at, @updated_at, @secret)`,
    );
    this.#byId = db.prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`);
    this.#list = db.prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY created_at, rowid`);
    this.#anyFor = db
      .prepare<[string], number>('SELECT 1 FROM webhooks WHERE spreadsheet_id = ? LIMIT 1')
      .pluck();
    this.#update = db.prepare(
      'UPDATE webhooks SET url = @url, events = @events, condition = @condition, status = @status, updated_at = @updated_at WHERE id = @id',
    );
    // Their deliveries and attempts go with them (foreign keys cascade).
    this.#remove = db.prepare('DELETE FROM webhooks WHERE id = ?');
    this.#secret = db.prepare<[string], string>('SELECT secret FROM webhooks WHERE id = ?').pluck();
    this.#setSecret = db.prepare('UPDATE webhooks SET secret = ?, updated_at = ? WHERE id = ?');
  }

  /** The IMMEDIATE transaction already keeps a removal out. */
  holdConnection(): void {}

  insert(row: WebhookRow, sealedSecret: string): void {
    this.#insert.run({ ...row, secret: sealedSecret });
  }

  byId(id: string): WebhookRow | undefined {
    return this.#byId.get(id);
  }

  list(): WebhookRow[] {
    return this.#list.all();
  }

  hasAny(spreadsheetId: string): boolean {
    return this.hasAnyNow(spreadsheetId);
  }

  hasAnyNow(spreadsheetId: string): boolean {
    return this.#anyFor.get(spreadsheetId) !== undefined;
  }

  update(id: string, change: WebhookUpdate): void {
    this.#update.run({ ...change, id });
  }

  remove(id: string): boolean {
    return this.#remove.run(id).changes > 0;
  }

  setSecret(id: string, sealed: string, updatedAt: string): boolean {
    return this.#setSecret.run(sealed, updatedAt, id).changes > 0;
  }

  sealedSecret(id: string): string | undefined {
    return this.#secret.get(id);
  }

  /** Nothing of webhooks is kept in memory (registry.ts keeps keys and connections), and other processes read
   * the file itself. */
  registryChanged(): void {}

  /** The delivery worker of every process polls data_version, which this commit moves for the others. */
  deliveriesChanged(): void {}
}
