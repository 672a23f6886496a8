/**
 * Webhook registrations in PostgreSQL, as store/webhooks.ts: secrets sealed with the team's key (the only place
 * that sees them in clear), the same ids, fields and order. `hasAnyNow` answers from an in-memory set of watched
 * spreadsheets, read at start, every second, and at once when any instance registers or removes a webhook
 * (NOTIFY `sheetport_registry`). Payload timestamps (last_timestamp_ms) are the change recording's business.
 */
import { randomBytes } from 'node:crypto';
import type { CreateWebhookInput, WebhookChange, WebhookRecord, Webhooks } from '../repositories/webhooks.ts';
import { type SecretBox, sealContext } from '../secrets/at-rest.ts';
import {
  WEBHOOK_COLUMNS as COLUMNS,
  type WebhookRow as Row,
  toWebhookRecord as toRecord,
} from '../store/webhooks.ts';
import { CHANNELS } from './channels.ts';
import type { PgListener } from './listener.ts';
import { type Pool, type Queryable, tx } from './pool.ts';

/** How often the watched set is read again even without a NOTIFY (one lost with a dropped connection). */
export const WATCHED_REFRESH_MS = 1000;

export interface PgWebhooksOptions {
  box: SecretBox;
  listener: PgListener;
  clock?: () => Date;
  log?: (message: string, err?: unknown) => void;
}

export class PgWebhooks implements Webhooks {
  readonly #pool: Pool;
  readonly #box: SecretBox;
  readonly #clock: () => Date;
  readonly #log: (message: string, err?: unknown) => void;
  readonly #listener: PgListener;
  /** Spreadsheet ids with at least one webhook, paused ones included. */
  #watched = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #unlisten: (() => void) | null = null;
  /** Numbers each read as it starts; the set is the answer of the newest applied, so an older read finishing late
   * never overwrites a newer one (nor a webhook made here after it began). */
  #reads = 0;
  #applied = 0;

  constructor(pool: Pool, options: PgWebhooksOptions) {
    this.#pool = pool;
    this.#box = options.box;
    this.#listener = options.listener;
    this.#clock = options.clock ?? (() => new Date());
    this.#log = options.log ?? (() => {});
  }

  /** Reads the watched set, then keeps it current (timer and NOTIFY) until `stop`. */
  async start(): Promise<void> {
    this.#unlisten = this.#listener.on(CHANNELS.registry, () => void this.refresh());
    await this.refresh();
    this.#timer = setInterval(() => void this.refresh(), WATCHED_REFRESH_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#unlisten?.();
    this.#unlisten = null;
  }

  /** Reads the set of watched spreadsheets again; a failed read keeps the last one (logged). */
  async refresh(): Promise<void> {
    const read = ++this.#reads;
    try {
      const { rows } = await this.#pool.query<{ spreadsheet_id: string }>(
        'SELECT DISTINCT spreadsheet_id FROM webhooks',
      );
      if (read > this.#applied) {
        this.#applied = read;
        this.#watched = new Set(rows.map((r) => r.spreadsheet_id));
      }
    } catch (err) {
      this.#log('Reading which spreadsheets have webhooks failed; keeping the last answer', err);
    }
  }

  async create(input: CreateWebhookInput): Promise<WebhookRecord> {
    const id = `wh_${randomBytes(9).toString('base64url')}`;
    const now = this.#clock().toISOString();
    await tx(this.#pool, async (client) => {
      // Waits for a removal of the spreadsheet under way on another instance (it locks the row for update).
      await client.query('SELECT 1 FROM connections WHERE id = $1 FOR SHARE', [input.spreadsheetId]);
      await client.query(
        `INSERT INTO webhooks (${COLUMNS}, secret) VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, $8, $8, $9)`,
        [
          id,
          input.url,
          input.spreadsheetId,
          input.sheetName,
          input.sourceSheetId,
          JSON.stringify(input.events),
          input.apiKeyId,
          now,
          this.#box.seal(input.secret, sealContext.webhookSecret(id)),
        ],
      );
      await client.query('SELECT pg_notify($1, $2)', [CHANNELS.registry, '']);
    });
    this.#applied = ++this.#reads; // a read begun before this commit must not drop it again
    this.#watched.add(input.spreadsheetId);
    const created = await this.get(id);
    if (!created) throw new Error('webhook insert returned no row');
    return created;
  }

  async get(id: string): Promise<WebhookRecord | null> {
    return getIn(this.#pool, id);
  }

  async list(): Promise<WebhookRecord[]> {
    const { rows } = await this.#pool.query<Row>(`SELECT ${COLUMNS} FROM webhooks ORDER BY created_at, seq`);
    return rows.map(toRecord);
  }

  async hasAny(spreadsheetId: string): Promise<boolean> {
    const { rowCount } = await this.#pool.query('SELECT 1 FROM webhooks WHERE spreadsheet_id = $1 LIMIT 1', [
      spreadsheetId,
    ]);
    return (rowCount ?? 0) > 0;
  }

  /** `hasAny` from memory (a source asks it synchronously between its checks): at most about a second old. */
  hasAnyNow(spreadsheetId: string): boolean {
    return this.#watched.has(spreadsheetId);
  }

  async update(id: string, change: WebhookChange): Promise<WebhookRecord | null> {
    return tx(this.#pool, async (client) => {
      const current = await getIn(client, id, ' FOR UPDATE');
      if (!current) return null;
      await client.query(
        'UPDATE webhooks SET url = $1, events = $2, status = $3, updated_at = $4 WHERE id = $5',
        [
          change.url ?? current.url,
          JSON.stringify(change.events ?? current.events),
          change.status ?? current.status,
          this.#clock().toISOString(),
          id,
        ],
      );
      // A resumed webhook's held deliveries are due again: every instance's worker looks.
      if (change.status === 'active' && current.status !== 'active') {
        await client.query('SELECT pg_notify($1, $2)', [CHANNELS.deliveries, '']);
      }
      return getIn(client, id);
    });
  }

  async remove(id: string): Promise<boolean> {
    const removed = await tx(this.#pool, async (client) => {
      const result = await client.query('DELETE FROM webhooks WHERE id = $1', [id]);
      if ((result.rowCount ?? 0) === 0) return false;
      await client.query('SELECT pg_notify($1, $2)', [CHANNELS.registry, '']);
      return true;
    });
    if (removed) await this.refresh();
    return removed;
  }

  async rotateSecret(id: string, secret: string): Promise<boolean> {
    const result = await this.#pool.query('UPDATE webhooks SET secret = $1, updated_at = $2 WHERE id = $3', [
      this.#box.seal(secret, sealContext.webhookSecret(id)),
      this.#clock().toISOString(),
      id,
    ]);
    return (result.rowCount ?? 0) > 0;
  }

  async secretOf(id: string): Promise<string | null> {
    const { rows } = await this.#pool.query<{ secret: string }>('SELECT secret FROM webhooks WHERE id = $1', [
      id,
    ]);
    const stored = rows[0]?.secret;
    return stored === undefined ? null : this.#box.open(stored, sealContext.webhookSecret(id));
  }
}

/**
 * What the change recording does with webhooks inside its own transaction (`db` is its client), as SQLite's
 * WebhookStore.forTab / renameTab / nextTimestamp do.
 */
export const webhooksInRecording = {
  /** Every webhook on a tab, paused ones included (their notifications queue until they resume). */
  async forTab(db: Queryable, spreadsheetId: string, sourceSheetId: string): Promise<WebhookRecord[]> {
    const { rows } = await db.query<Row>(
      `SELECT ${COLUMNS} FROM webhooks WHERE spreadsheet_id = $1 AND source_sheet_id = $2 ORDER BY created_at, seq`,
      [spreadsheetId, sourceSheetId],
    );
    return rows.map(toRecord);
  },

  /** The tab was renamed: every webhook on it shows the new name; how many changed. */
  async renameTab(
    db: Queryable,
    spreadsheetId: string,
    sourceSheetId: string,
    name: string,
  ): Promise<number> {
    const result = await db.query(
      `UPDATE webhooks SET sheet_name = $1
       WHERE spreadsheet_id = $2 AND source_sheet_id = $3 AND sheet_name <> $1`,
      [name, spreadsheetId, sourceSheetId],
    );
    return result.rowCount ?? 0;
  },

  /**
   * A payload timestamp for the webhook strictly after its previous one (bumped by 1 ms when two would be
   * equal), in one statement under the row's lock, so instances recording at once never repeat one. Null: no
   * such webhook.
   */
  async nextTimestamp(db: Queryable, webhookId: string, nowMs: number): Promise<number | null> {
    const { rows } = await db.query<{ ts: number }>(
      `UPDATE webhooks SET last_timestamp_ms = GREATEST($2::bigint, last_timestamp_ms + 1)
       WHERE id = $1 RETURNING last_timestamp_ms AS ts`,
      [webhookId, nowMs],
    );
    return rows[0]?.ts ?? null;
  },
};

async function getIn(db: Queryable, id: string, lock = ''): Promise<WebhookRecord | null> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM webhooks WHERE id = $1${lock}`, [id]);
  return rows[0] ? toRecord(rows[0]) : null;
}
