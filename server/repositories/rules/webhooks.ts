/**
 * Webhook registrations, once for both databases: ids, the secret sealed at rest (this is the only place that
 * opens it), creation order, and what other holders of the database hear (a registration or removal changes
 * which spreadsheets are watched; a resumed webhook's held deliveries are due). Each database implements
 * `WebhookStatements` in its SQL (store/webhooks.ts, store-pg/webhooks.ts). Payload timestamps and tab renames
 * are the change recording's (change-recording.ts).
 */
import { randomBytes } from 'node:crypto';
import { type SecretBox, sealContext } from '../../secrets/at-rest.ts';
import type {
  CreateWebhookInput,
  WebhookChange,
  WebhookCondition,
  WebhookEvent,
  WebhookRecord,
  WebhookStatus,
  Webhooks,
} from '../webhooks.ts';
import { type Answer, settled, type Transactional } from './transactional.ts';

/** The webhooks table's row, as both databases return it (events: a JSON array as text). */
export interface WebhookRow {
  id: string;
  url: string;
  spreadsheet_id: string;
  sheet_name: string;
  source_sheet_id: string;
  events: string;
  /** The condition as JSON text (`{"where":…,"columns":…}`); null without one. */
  condition: string | null;
  status: WebhookStatus;
  api_key_id: string | null;
  created_at: string;
  updated_at: string;
}

/** `WebhookRow`'s columns, as both databases select them. */
export const WEBHOOK_COLUMNS =
  'id, url, spreadsheet_id, sheet_name, source_sheet_id, events, condition, status, api_key_id, created_at, updated_at';

export type WebhookUpdate = Pick<WebhookRow, 'url' | 'events' | 'condition' | 'status' | 'updated_at'>;

export interface WebhookStatements {
  /** Holds the spreadsheet's connection until the transaction ends: a removal of it under way goes first. */
  holdConnection(spreadsheetId: string): Answer<void>;
  insert(row: WebhookRow, sealedSecret: string): Answer<void>;
  /** `lock`: held for an update until the transaction ends. */
  byId(id: string, lock?: boolean): Answer<WebhookRow | undefined>;
  /** In creation order: `created_at`, then the database's insertion order. */
  list(): Answer<WebhookRow[]>;
  hasAny(spreadsheetId: string): Answer<boolean>;
  /** `hasAny` at once, without waiting on the database (SQLite reads its file; PostgreSQL keeps a set). */
  hasAnyNow(spreadsheetId: string): boolean;
  update(id: string, change: WebhookUpdate): Answer<void>;
  /** Whether there was one; its deliveries and their attempts go with it. */
  remove(id: string): Answer<boolean>;
  setSecret(id: string, sealed: string, updatedAt: string): Answer<boolean>;
  sealedSecret(id: string): Answer<string | undefined>;
  /** Whoever keeps what it read of the registry reads it again once this commits. */
  registryChanged(): Answer<void>;
  /** Whoever sends deliveries looks for due ones once this commits. */
  deliveriesChanged(): Answer<void>;
}

export class WebhookRepository implements Webhooks {
  readonly #db: Transactional<WebhookStatements>;
  /** Seals secrets at rest (secrets/at-rest.ts): the data dir's data key, or team mode's key. */
  readonly #box: SecretBox;
  readonly #clock: () => Date;

  constructor(db: Transactional<WebhookStatements>, box: SecretBox, clock: () => Date = () => new Date()) {
    this.#db = db;
    this.#box = box;
    this.#clock = clock;
  }

  async create(input: CreateWebhookInput): Promise<WebhookRecord> {
    const id = `wh_${randomBytes(9).toString('base64url')}`;
    const now = this.#clock().toISOString();
    const row: WebhookRow = {
      id,
      url: input.url,
      spreadsheet_id: input.spreadsheetId,
      sheet_name: input.sheetName,
      source_sheet_id: input.sourceSheetId,
      events: JSON.stringify(input.events),
      condition: conditionText(input.condition),
      status: 'active',
      api_key_id: input.apiKeyId,
      created_at: now,
      updated_at: now,
    };
    const sealed = this.#box.seal(input.secret, sealContext.webhookSecret(id));
    await this.#db.transaction(function* (s) {
      yield* settled(s.holdConnection(input.spreadsheetId));
      yield* settled(s.insert(row, sealed));
      yield* settled(s.registryChanged());
    });
    return webhookRecord(row);
  }

  async get(id: string): Promise<WebhookRecord | null> {
    const row = await this.#db.statements.byId(id);
    return row ? webhookRecord(row) : null;
  }

  async list(): Promise<WebhookRecord[]> {
    return (await this.#db.statements.list()).map(webhookRecord);
  }

  /** Whether any webhook, paused ones included, is registered on a tab of this spreadsheet. */
  async hasAny(spreadsheetId: string): Promise<boolean> {
    return this.#db.statements.hasAny(spreadsheetId);
  }

  /** `hasAny` answered at once, outside the interface: a source asks it synchronously between its checks. */
  hasAnyNow(spreadsheetId: string): boolean {
    return this.#db.statements.hasAnyNow(spreadsheetId);
  }

  async update(id: string, change: WebhookChange): Promise<WebhookRecord | null> {
    const updatedAt = this.#clock().toISOString();
    const row = await this.#db.transaction(function* (s) {
      const current = yield* settled(s.byId(id, true));
      if (!current) return undefined;
      const status = change.status ?? current.status;
      const events = change.events ? JSON.stringify(change.events) : current.events;
      const condition = change.condition === undefined ? current.condition : conditionText(change.condition);
      const url = change.url ?? current.url;
      yield* settled(s.update(id, { url, events, condition, status, updated_at: updatedAt }));
      // A resumed webhook's held deliveries are due again.
      if (status === 'active' && current.status !== 'active') yield* settled(s.deliveriesChanged());
      return yield* settled(s.byId(id));
    });
    return row ? webhookRecord(row) : null;
  }

  async remove(id: string): Promise<boolean> {
    return this.#db.transaction(function* (s) {
      const removed = yield* settled(s.remove(id));
      if (removed) yield* settled(s.registryChanged());
      return removed;
    });
  }

  /** Replace the secret; deliveries signed from now on use it (retries of older ones too). */
  async rotateSecret(id: string, secret: string): Promise<boolean> {
    const sealed = this.#box.seal(secret, sealContext.webhookSecret(id));
    return this.#db.statements.setSecret(id, sealed, this.#clock().toISOString());
  }

  async secretOf(id: string): Promise<string | null> {
    const stored = await this.#db.statements.sealedSecret(id);
    return stored === undefined ? null : this.#box.open(stored, sealContext.webhookSecret(id));
  }
}

/** The one mapping of a webhooks row to its record. */
export function webhookRecord(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    url: row.url,
    spreadsheetId: row.spreadsheet_id,
    sheetName: row.sheet_name,
    sourceSheetId: row.source_sheet_id,
    events: JSON.parse(row.events) as WebhookEvent[],
    condition: conditionOf(row.condition),
    status: row.status,
    apiKeyId: row.api_key_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A condition as the webhooks table keeps it. */
export function conditionText(condition: WebhookCondition | null | undefined): string | null {
  return condition ? JSON.stringify({ where: condition.where, columns: condition.columns }) : null;
}

/** The one reading of a stored condition, for the registry and the change recording alike. */
export function conditionOf(text: string | null): WebhookCondition | null {
  if (text === null) return null;
  const parsed = JSON.parse(text) as Partial<WebhookCondition>;
  return { where: parsed.where ?? null, columns: parsed.columns ?? null };
}
