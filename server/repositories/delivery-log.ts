/**
 * The delivery log across every webhook, for the dashboard: filtered pages, a cheap fingerprint that changes
 * whenever a delivery is queued, attempted or settled, and each webhook's health (rules/delivery-log.ts, over
 * either database).
 */
import type { DeliveryPage, DeliveryState } from './deliveries.ts';

export interface DeliveryLogFilter {
  webhookId?: string;
  state?: DeliveryState;
  event?: string;
  limit: number;
  offset: number;
}

/** What a webhook's latest attempts say about its receiver (times in epoch milliseconds). */
export interface WebhookHealthRecord {
  /** The newest attempt of its newest deliveries; null when none was attempted yet. */
  last: { startedAt: number; status: number | null; error: string | null; ok: boolean } | null;
  /** Attempts of those deliveries that failed since the newest one that succeeded (all of them when none did). */
  failuresInARow: number;
}

export interface DeliveryLog {
  /** The newest attempt of a webhook's deliveries and how many failed in a row. */
  health(webhookId: string): Promise<WebhookHealthRecord>;
  /** Newest first. */
  page(filter: DeliveryLogFilter): Promise<DeliveryPage>;
  /** Changes whenever any delivery is queued, attempted, replayed or settled (by this process or another). */
  fingerprint(): Promise<string>;
}
