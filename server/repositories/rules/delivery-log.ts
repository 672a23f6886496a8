/**
 * The delivery log across every webhook (delivery-log.ts), once for both databases: filtered pages newest first,
 * a fingerprint that moves whenever a delivery is queued, claimed, attempted, replayed or removed (by any process
 * or instance), and each webhook's health from the attempts of its newest deliveries only, so reading it costs
 * the same however long the log grew. Over the outbox's statements (outbox.ts), plus the health's own.
 */
import type { DeliveryPage } from '../deliveries.ts';
import type { DeliveryLog, DeliveryLogFilter, WebhookHealthRecord } from '../delivery-log.ts';
import { type OutboxStatements, pageOf } from './outbox.ts';
import type { Answer } from './transactional.ts';

/** Health reads the attempts of this many of a webhook's newest deliveries. */
export const HEALTH_WINDOW = 200;

/** An attempt among the health window's, with whether it succeeded (2xx and the answer read whole). */
export interface TriedRow {
  started_at: number;
  status: number | null;
  error: string | null;
  ok: number | boolean | null;
}

export interface DeliveryLogStatements extends Pick<OutboxStatements, 'page' | 'count'> {
  /** The newest attempt of the webhook's newest HEALTH_WINDOW deliveries (the later attempt on a tie). */
  lastTried(webhookId: string): Answer<TriedRow | undefined>;
  /** Those attempts that failed after the newest that succeeded (all of them when none did). */
  failedSinceSuccess(webhookId: string): Answer<number>;
  /** Changes with every queueing, claim, retry schedule, settling, replay and removal; never reads a payload. */
  fingerprint(): Answer<string>;
}

export class DeliveryLogRepository implements DeliveryLog {
  readonly #s: DeliveryLogStatements;

  constructor(statements: DeliveryLogStatements) {
    this.#s = statements;
  }

  async health(webhookId: string): Promise<WebhookHealthRecord> {
    const last = await this.#s.lastTried(webhookId);
    if (!last) return { last: null, failuresInARow: 0 };
    const ok = last.ok === true || last.ok === 1;
    return {
      last: { startedAt: last.started_at, status: last.status, error: last.error, ok },
      failuresInARow: ok ? 0 : await this.#s.failedSinceSuccess(webhookId),
    };
  }

  async page(filter: DeliveryLogFilter): Promise<DeliveryPage> {
    return pageOf(this.#s, filter);
  }

  async fingerprint(): Promise<string> {
    return this.#s.fingerprint();
  }
}
