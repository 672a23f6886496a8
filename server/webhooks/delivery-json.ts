/**
 * A delivery and its attempts as the API, the dashboard and the CLI show them (one set of shapes, so they cannot
 * drift). The `/v1` API shows an attempt at a loopback or private address without its response excerpt and with
 * a coarse error (docs/api.md, "Delivery log"); the admin surface and the CLI show everything, with the address it
 * went to and the headers it sent (the API does not: a key holder could replay a signed request to the receiver).
 */
import { iso } from '../lib/iso-time.ts';
import type { AttemptRecord, DeliveryRecord } from '../repositories/deliveries.ts';
import { coarseError, detailsShown } from './attempt-target.ts';

export function deliveryJson(d: DeliveryRecord) {
  return {
    delivery_id: d.id,
    event: d.event,
    state: d.state,
    attempts: d.attempts,
    next_attempt_at: d.state === 'pending' ? iso(d.nextAttemptAt) : null,
    created_at: iso(d.createdAt),
    completed_at: iso(d.completedAt),
  };
}

/** A delivery in a log that spans webhooks (the dashboard's, the CLI's): with its webhook. */
export function deliveryLogEntryJson(d: DeliveryRecord) {
  return { ...deliveryJson(d), webhook_id: d.webhookId };
}

/** What every view of an attempt shows: when it ran, how long, and the receiver's status. */
function attemptTimingJson(a: AttemptRecord) {
  return {
    attempt: a.attempt,
    trigger: a.trigger,
    started_at: iso(a.startedAt),
    duration_ms: a.durationMs,
    status: a.status,
  };
}

/** One attempt for the `/v1` API: in full for a public target, else without excerpt and with a coarse error. */
export function apiAttemptJson(a: AttemptRecord) {
  const shown = detailsShown(a.targetKind);
  return {
    ...attemptTimingJson(a),
    error: shown ? a.error : coarseError(a),
    response_excerpt: shown ? a.responseExcerpt : null,
  };
}

/** One attempt for the admin surface and the CLI: everything recorded. */
export function fullAttemptJson(a: AttemptRecord) {
  return {
    ...attemptTimingJson(a),
    error: a.error,
    response_excerpt: a.responseExcerpt,
    target_address: a.targetAddress,
    target_kind: a.targetKind,
    request_headers: a.requestHeaders,
  };
}

/** A delivery with its payload and every attempt, shaped by `attemptJson`. */
export function deliveryDetailJson(
  d: DeliveryRecord,
  attempts: AttemptRecord[],
  attemptJson: (a: AttemptRecord) => object,
) {
  return {
    ...deliveryLogEntryJson(d),
    payload: JSON.parse(d.payload) as unknown,
    attempt_log: attempts.map(attemptJson),
  };
}
