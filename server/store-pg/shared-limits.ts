/**
 * Team mode's per-key limits (repositories/shared-limits.ts): one round trip per request, to the SQL function
 * `sheetport_take_limit` (migrations/0003-team.ts), which takes the request's place in the subject's rolling
 * window and day under the subject's row lock, by the same rules as limits/rate-limiter.ts's in-memory window.
 * The time is the caller's (the service clock), so the answers equal the in-memory limiter's; instances' clocks
 * should agree (NTP) for the window to be exact across them.
 */
import type { SharedLimitAnswer, SharedLimitRequest, SharedLimits } from '../repositories/shared-limits.ts';
import type { Queryable } from './pool.ts';

interface TakeRow {
  refused_by: 'per_second' | 'daily' | null;
  used: number;
  reset_at_ms: number;
  daily_used: number;
}

/** How often idle windows and old days are pruned (by whichever request comes after). */
const PRUNE_EVERY_MS = 3_600_000;

export class PgSharedLimits implements SharedLimits {
  readonly #db: Queryable;
  readonly #log: (message: string, err?: unknown) => void;
  #prunedAt = Number.NEGATIVE_INFINITY;

  constructor(db: Queryable, log: (message: string, err?: unknown) => void = () => {}) {
    this.#db = db;
    this.#log = log;
  }

  async take(request: SharedLimitRequest): Promise<SharedLimitAnswer> {
    if (request.nowMs - this.#prunedAt >= PRUNE_EVERY_MS) void this.prune(request.nowMs);
    const { rows } = await this.#db.query<TakeRow>(
      'SELECT refused_by, used, reset_at_ms, daily_used FROM sheetport_take_limit($1, $2, $3, $4, $5)',
      [request.subject, request.perSecond, request.daily, request.nowMs, request.windowMs],
    );
    const row = rows[0] as TakeRow;
    return {
      refusedBy: row.refused_by,
      used: row.used,
      resetAtMs: row.reset_at_ms,
      dailyUsed: row.daily_used,
    };
  }

  /** Drops windows idle for a minute (anonymous subjects come and go) and days older than a month. */
  async prune(nowMs: number): Promise<void> {
    this.#prunedAt = nowMs;
    await this.#db
      .query('SELECT sheetport_prune_limits($1)', [nowMs])
      .catch((err) => this.#log('Pruning the shared limits failed; tried again in an hour', err));
  }
}
