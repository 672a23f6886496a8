/**
 * Webhook registrations: the event list, the records, and the async repository. store/webhooks.ts is the
 * SQLite implementation; it keeps each secret sealed at rest and is the only place that sees it in clear.
 */

/** The four event types a webhook subscribes to. */
export const WEBHOOK_EVENTS = ['row.inserted', 'row.updated', 'row.deleted', 'bulk.import'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const isWebhookEvent = (v: unknown): v is WebhookEvent =>
  typeof v === 'string' && (WEBHOOK_EVENTS as readonly string[]).includes(v);

export type WebhookStatus = 'active' | 'paused';

/**
 * What a webhook notifies of a change (docs/api.md, "Conditional webhooks"): a changed row only when it matches
 * `where` before or after the change, and an update only when one of `columns` changed (inserts and deletes
 * always). Null: no such condition.
 */
export interface WebhookCondition {
  where: string | null;
  columns: string[] | null;
}

export interface WebhookRecord {
  id: string;
  url: string;
  spreadsheetId: string;
  /** The tab's name as last seen: set at registration, updated when the change recorder sees a rename. */
  sheetName: string;
  sourceSheetId: string;
  events: WebhookEvent[];
  /** Null: every changed row of the subscribed events is notified. */
  condition: WebhookCondition | null;
  status: WebhookStatus;
  apiKeyId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface CreateWebhookInput {
  url: string;
  spreadsheetId: string;
  sheetName: string;
  sourceSheetId: string;
  events: WebhookEvent[];
  /** None when left out. */
  condition?: WebhookCondition | null;
  apiKeyId: string | null;
  /** Made by the caller (webhooks/register.ts); kept sealed at rest. */
  secret: string;
}

export interface WebhookChange {
  url?: string;
  events?: WebhookEvent[];
  /** Null: the condition is taken away. */
  condition?: WebhookCondition | null;
  status?: WebhookStatus;
}

/** Validation of URLs, events and targets happens before these calls (webhooks/register.ts). */
export interface Webhooks {
  /** Register a webhook with its secret (never returned by a read). */
  create(input: CreateWebhookInput): Promise<WebhookRecord>;
  get(id: string): Promise<WebhookRecord | null>;
  list(): Promise<WebhookRecord[]>;
  /** Whether any webhook, paused ones included, is registered on a tab of this spreadsheet. */
  hasAny(spreadsheetId: string): Promise<boolean>;
  update(id: string, change: WebhookChange): Promise<WebhookRecord | null>;
  remove(id: string): Promise<boolean>;
  /** Replace the secret; deliveries signed from now on use it. False: no such webhook. */
  rotateSecret(id: string, secret: string): Promise<boolean>;
  /** The secret in clear, for signing a delivery; null: no such webhook. */
  secretOf(id: string): Promise<string | null>;
}
