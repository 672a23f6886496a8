/** The seed's four event types. */
export const WEBHOOK_EVENTS = ['row.inserted', 'row.updated', 'row.deleted', 'bulk.import'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const isWebhookEvent = (v: unknown): v is WebhookEvent =>
  typeof v === 'string' && (WEBHOOK_EVENTS as readonly string[]).includes(v);
