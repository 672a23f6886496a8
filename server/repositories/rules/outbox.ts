/**
 * The outbox (deliveries.ts) and its log (delivery-log.ts), once for both databases: the claim rules (what is
 * due, the claim, an expired claim claimable again with the same id), an attempt settled with the next state, a
 * replay, pages and the log's filters. Deliveries are queued only by the change recording (change-recording.ts).
 * Each database implements `OutboxStatements` in its SQL (store/deliveries.ts, store-pg/deliveries.ts).
 */
import type {
  AttemptOutcome,
  AttemptRecord,
  Deliveries,
  DeliveryPage,
  DeliveryRecord,
  DeliveryState,
  NextState,
} from '../deliveries.ts';
import type { DeliveryLogFilter } from '../delivery-log.ts';
import { type Answer, type Rule, settled, type Transactional } from './transactional.ts';

/** The deliveries table's row, as both databases return it (`replay` 0 or 1 in SQLite, a boolean in PostgreSQL). */
export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event: string;
  payload: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: number | null;
  replay: number | boolean;
  created_at: number;
  completed_at: number | null;
}

/** `DeliveryRow`'s columns, as both databases select them; `_D`: from a join that names the table `d`. */
export const DELIVERY_COLUMNS =
  'id, webhook_id, event, payload, state, attempts, next_attempt_at, replay, created_at, completed_at';
export const DELIVERY_COLUMNS_D = DELIVERY_COLUMNS.split(', ')
  .map((c) => `d.${c}`)
  .join(', ');

/** The delivery_attempts table's row (`request_headers`: JSON text). */
export interface AttemptRow {
  attempt: number;
  trigger: AttemptRecord['trigger'];
  started_at: number;
  duration_ms: number;
  status: number | null;
  error: string | null;
  response_excerpt: string | null;
  target_address: string | null;
  target_kind: string | null;
  request_headers: string | null;
}

/** One equality a page of the log is filtered by. */
export interface LogCondition {
  column: 'webhook_id' | 'state' | 'event';
  value: string;
}

export interface OutboxStatements {
  /** Pending deliveries of active webhooks due by `nowMs`, the earliest due first, at most `limit`; held until
   * the transaction ends, passing over those another transaction holds. */
  duePending(nowMs: number, limit: number): Answer<DeliveryRow[]>;
  /** In-flight deliveries of active webhooks whose claim ended by `nowMs`, the earliest first; held likewise. */
  claimExpired(nowMs: number, limit: number): Answer<DeliveryRow[]>;
  /** In flight until `claimedUntil`. */
  claim(ids: readonly string[], claimedUntil: number): Answer<void>;
  /** When the earliest pending delivery of an active webhook is due; null when none is. */
  nextPendingAt(): Answer<number | null>;
  /** When the earliest claim of a delivery in flight ends; null when none is in flight. */
  nextClaimEnd(): Answer<number | null>;
  addAttempt(deliveryId: string, attempt: AttemptRow): Answer<void>;
  /** The delivery's new state, its claim and replay flag cleared. */
  settle(deliveryId: string, attempts: number, next: NextState): Answer<void>;
  /** `lock`: held for a change until the transaction ends. */
  byId(id: string, lock?: boolean): Answer<DeliveryRow | undefined>;
  /** Oldest first. */
  attemptsOf(deliveryId: string): Answer<AttemptRow[]>;
  /** Deliveries matching every condition, newest first (`created_at`, then the database's insertion order). */
  page(where: readonly LogCondition[], limit: number, offset: number): Answer<DeliveryRow[]>;
  count(where: readonly LogCondition[]): Answer<number>;
  /** Pending and due at `nowMs`, flagged as a replay or not. */
  replayAt(id: string, nowMs: number, replay: boolean): Answer<void>;
  /** Whoever sends deliveries looks for due ones once this commits. */
  deliveriesChanged(): Answer<void>;
  /** Moves when another process or instance commits to the outbox (never for this one's own writes alone). */
  externalVersion(): Answer<number>;
  /** Deletes finished deliveries (and their attempts) completed before `beforeMs`; how many. */
  purgeFinished(beforeMs: number): Answer<number>;
}

export class OutboxRepository implements Deliveries {
  readonly #db: Transactional<OutboxStatements>;

  constructor(db: Transactional<OutboxStatements>) {
    this.#db = db;
  }

  /** Expired claims first (a worker died with them), then pending ones by due time; `accept` may turn one down
   * (its webhook is at its concurrency cap). */
  async claimDue(
    nowMs: number,
    limit: number,
    claimMs: number,
    accept: (d: DeliveryRecord) => boolean = () => true,
  ): Promise<DeliveryRecord[]> {
    return this.#db.transaction((s) => claiming(s, nowMs, limit, nowMs + claimMs, accept));
  }

  async nextDueAt(): Promise<number | null> {
    const s = this.#db.statements;
    const [pending, claimEnd] = await Promise.all([s.nextPendingAt(), s.nextClaimEnd()]);
    if (pending === null) return claimEnd;
    return claimEnd === null ? pending : Math.min(pending, claimEnd);
  }

  async settle(delivery: DeliveryRecord, attempt: AttemptOutcome, next: NextState): Promise<void> {
    const number = delivery.attempts + 1;
    const row = attemptRow(number, attempt);
    await this.#db.transaction(function* (s) {
      yield* settled(s.addAttempt(delivery.id, row));
      yield* settled(s.settle(delivery.id, number, next));
    });
  }

  async get(id: string): Promise<DeliveryRecord | null> {
    const row = await this.#db.statements.byId(id);
    return row ? deliveryRecord(row) : null;
  }

  async attemptsOf(id: string): Promise<AttemptRecord[]> {
    return (await this.#db.statements.attemptsOf(id)).map(attemptRecord);
  }

  /** A webhook's deliveries, newest first, optionally one state. */
  async page(
    webhookId: string,
    options: { state?: DeliveryState; limit: number; offset: number },
  ): Promise<DeliveryPage> {
    return pageOf(this.#db.statements, { webhookId, ...options });
  }

  /**
   * A manual replay: a new attempt now. For a finished delivery it is one extra attempt (not retried on
   * failure); for one awaiting a retry it brings that retry forward and the schedule goes on from there.
   * False when there is none, or it is in flight right now.
   */
  async requestReplay(id: string, nowMs: number): Promise<boolean> {
    return this.#db.transaction(function* (s) {
      const found = yield* settled(s.byId(id, true));
      if (!found || found.state === 'in_flight') return false;
      const finished = found.state === 'failed' || found.state === 'succeeded';
      yield* settled(s.replayAt(id, nowMs, finished));
      yield* settled(s.deliveriesChanged());
      return true;
    });
  }

  async externalVersion(): Promise<number> {
    return this.#db.statements.externalVersion();
  }

  async purgeFinished(beforeMs: number): Promise<number> {
    return this.#db.statements.purgeFinished(beforeMs);
  }
}

function* claiming(
  s: OutboxStatements,
  nowMs: number,
  limit: number,
  claimedUntil: number,
  accept: (d: DeliveryRecord) => boolean,
): Rule<DeliveryRecord[]> {
  // Read past the limit, as some may be turned down.
  const expired = yield* settled(s.claimExpired(nowMs, limit * 4));
  const pending = yield* settled(s.duePending(nowMs, limit * 4));
  const claimed: DeliveryRecord[] = [];
  for (const row of [...expired, ...pending]) {
    if (claimed.length >= limit) break;
    const d = deliveryRecord(row);
    if (accept(d)) claimed.push({ ...d, state: 'in_flight' });
  }
  if (claimed.length > 0)
    yield* settled(
      s.claim(
        claimed.map((d) => d.id),
        claimedUntil,
      ),
    );
  return claimed;
}

/** A page of the log: its rows and how many match in all. */
export async function pageOf(
  s: Pick<OutboxStatements, 'page' | 'count'>,
  filter: DeliveryLogFilter,
): Promise<DeliveryPage> {
  const where = conditionsOf(filter);
  const [rows, total] = await Promise.all([s.page(where, filter.limit, filter.offset), s.count(where)]);
  return { total, data: rows.map(deliveryRecord) };
}

function conditionsOf(filter: Omit<DeliveryLogFilter, 'limit' | 'offset'>): LogCondition[] {
  const where: LogCondition[] = [];
  if (filter.webhookId !== undefined) where.push({ column: 'webhook_id', value: filter.webhookId });
  if (filter.state !== undefined) where.push({ column: 'state', value: filter.state });
  if (filter.event !== undefined) where.push({ column: 'event', value: filter.event });
  return where;
}

function attemptRow(attempt: number, outcome: AttemptOutcome): AttemptRow {
  return {
    attempt,
    trigger: outcome.trigger,
    started_at: outcome.startedAt,
    duration_ms: outcome.durationMs,
    status: outcome.status,
    error: outcome.error,
    response_excerpt: outcome.responseExcerpt,
    target_address: outcome.targetAddress ?? null,
    target_kind: outcome.targetKind ?? null,
    request_headers: outcome.requestHeaders ? JSON.stringify(outcome.requestHeaders) : null,
  };
}

function attemptRecord(row: AttemptRow): AttemptRecord {
  return {
    attempt: row.attempt,
    trigger: row.trigger,
    startedAt: row.started_at,
    durationMs: row.duration_ms,
    status: row.status,
    error: row.error,
    responseExcerpt: row.response_excerpt,
    targetAddress: row.target_address,
    targetKind: row.target_kind,
    requestHeaders:
      row.request_headers === null ? null : (JSON.parse(row.request_headers) as Record<string, string>),
  };
}

/** The one mapping of a deliveries row to its record. */
export function deliveryRecord(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    event: row.event,
    payload: row.payload,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    replay: row.replay === true || row.replay === 1,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}
