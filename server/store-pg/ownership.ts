/**
 * Team mode's Ownership over PostgreSQL (repositories/ownership.ts): every instance writes, in turn under
 * `exclusive`; the lease holder alone watches for outside changes.
 *
 * The lease: a `spreadsheet_leases` row (holder = this instance's id, expires_at on the DATABASE's clock, so
 * instances' clocks never matter). Taking it succeeds when there is no row, or its lease has expired, or it is
 * this holder's. One timer per instance renews every lease it holds every TTL/3 in one statement. A lease is lost
 * (`lost` fires with ownershipEnded's error) when its row was taken by another holder, or when renewing has
 * failed for longer than the TTL (counted locally from the last renewal that succeeded, sent at or before the
 * database's new expiry: so this instance gives up no later than another may take over). The TTL is
 * SHEETPORT_LEASE_TTL_MS, default 5 s (config.ts): an instance that dies is replaced as owner within the TTL
 * plus one renewal period of whoever asks next. Between round trips, `renew` answers from the last confirmation
 * while it is less than a renew period old, and a refused `acquire` is not asked again for a renew period (every
 * read of the change feed asks), so a spreadsheet given up is taken by an instance refused just before within
 * one renew period.
 *
 * The lock (`exclusive`): a session-level advisory lock on a key derived from the spreadsheet id, held on a
 * connection of a pool of its own (so turns waiting for a lock never take the connections recordings need) for
 * the duration of the work, and always unlocked. If the instance or its connection dies mid-work, PostgreSQL ends
 * the session and releases the lock: the lock connections ask the server to probe them every few seconds
 * (TCP keepalives), so a vanished machine's locks go within about 11 s.
 */
import pg from 'pg';
import { AppError } from '../errors.ts';
import { type Lease, type Ownership, ownershipEnded, type Writers } from '../repositories/ownership.ts';
import type { Pool } from './pool.ts';

/** The first key of the two-key advisory locks of `exclusive` (the one-key space holds migrate.ts's lock). */
const EXCLUSIVE_LOCK_SPACE = 7_318_202;

export interface PgOwnershipOptions {
  /** The store's pool: lease statements, short. */
  pool: Pool;
  /** Where the lock connections go (a pool of their own, opened here and ended by `close`). */
  databaseUrl: string;
  /** This instance's name in lease rows. */
  instanceId: string;
  /** How long a lease lasts without renewal (ms). */
  ttlMs: number;
  /** Spreadsheets in a write turn at once on this instance, each holding one lock connection (default 10). */
  lockConnections?: number;
  log?: (message: string, err?: unknown) => void;
}

interface Held {
  lease: Lease;
  end: AbortController;
  /** performance.now() until which the lease surely stands: when the last successful renewal was sent + TTL. */
  validUntil: number;
}

const TAKE = `
  INSERT INTO spreadsheet_leases AS l (spreadsheet_id, holder, expires_at)
  VALUES ($1, $2, now() + $3 * interval '1 millisecond')
  ON CONFLICT (spreadsheet_id) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
  WHERE l.expires_at < now() OR l.holder = EXCLUDED.holder
  RETURNING l.spreadsheet_id`;

const RENEW = `
  UPDATE spreadsheet_leases SET expires_at = now() + $3 * interval '1 millisecond'
  WHERE holder = $1 AND spreadsheet_id = ANY($2::text[])
  RETURNING spreadsheet_id`;

export class PgOwnership implements Ownership {
  readonly writers: Writers = 'every instance';
  readonly #pool: Pool;
  readonly #lockPool: pg.Pool;
  readonly #instanceId: string;
  readonly #ttlMs: number;
  readonly #log: (message: string, err?: unknown) => void;
  readonly #held = new Map<string, Held>();
  /** Spreadsheets another instance owned when last asked: not asked again for a renew period (every read of the
   * feed on a non-owner asks), which delays a takeover by at most that. */
  readonly #refusedUntil = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;
  #renewing = false;
  /** Renewal failures are logged once until one succeeds. */
  #failing = false;

  constructor(options: PgOwnershipOptions) {
    this.#pool = options.pool;
    this.#instanceId = options.instanceId;
    this.#ttlMs = options.ttlMs;
    this.#log = options.log ?? (() => {});
    this.#lockPool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.lockConnections ?? 10,
      // Also how long a turn waits for a free lock connection while every one is in another spreadsheet's turn.
      connectionTimeoutMillis: 30_000,
      idleTimeoutMillis: 30_000,
      application_name: 'sheetport-locks',
      keepAlive: true,
      // The server probes an idle lock connection after 5 s, every 2 s, 3 times: a dead holder's locks go.
      options: '-c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3',
    });
    this.#lockPool.on('error', () => {});
  }

  get ttlMs(): number {
    return this.#ttlMs;
  }

  async acquire(spreadsheetId: string): Promise<Lease | null> {
    if (this.#held.has(spreadsheetId)) return null; // one lease per spreadsheet per holder
    const sentAt = performance.now();
    if (sentAt < (this.#refusedUntil.get(spreadsheetId) ?? 0)) return null;
    const { rowCount } = await this.#pool.query(TAKE, [spreadsheetId, this.#instanceId, this.#ttlMs]);
    if (!rowCount) {
      this.#refusedUntil.set(spreadsheetId, performance.now() + this.#period);
      return null;
    }
    this.#refusedUntil.delete(spreadsheetId);
    if (this.#held.has(spreadsheetId)) return null;
    const end = new AbortController();
    const held: Held = { lease: { spreadsheetId, lost: end.signal }, end, validUntil: sentAt + this.#ttlMs };
    this.#held.set(spreadsheetId, held);
    this.#startTimer();
    return held.lease;
  }

  async renew(lease: Lease): Promise<boolean> {
    const held = this.#held.get(lease.spreadsheetId);
    if (held?.lease !== lease || lease.lost.aborted) return false;
    const sentAt = performance.now();
    // Confirmed within the last renew period: it stands (nobody may take it before a TTL from then), no round trip.
    if (held.validUntil - sentAt > this.#ttlMs - this.#period) return true;
    try {
      const { rows } = await this.#pool.query(RENEW, [this.#instanceId, [lease.spreadsheetId], this.#ttlMs]);
      if (rows.length > 0) held.validUntil = Math.max(held.validUntil, sentAt + this.#ttlMs);
      else this.#lose(held);
    } catch (err) {
      this.#log(`Could not renew the lease of spreadsheet "${lease.spreadsheetId}"`, err);
      if (performance.now() > held.validUntil) this.#lose(held);
    }
    return !lease.lost.aborted;
  }

  async release(lease: Lease, reason?: AppError): Promise<void> {
    const held = this.#held.get(lease.spreadsheetId);
    if (held?.lease !== lease) return;
    this.#held.delete(lease.spreadsheetId);
    held.end.abort(reason ?? ownershipEnded(lease.spreadsheetId));
    if (this.#held.size === 0) this.#stopTimer();
    await this.#pool
      .query('DELETE FROM spreadsheet_leases WHERE spreadsheet_id = $1 AND holder = $2', [
        lease.spreadsheetId,
        this.#instanceId,
      ])
      .catch((err) => this.#log(`Could not give up spreadsheet "${lease.spreadsheetId}"; it lapses`, err));
  }

  async exclusive<T>(spreadsheetId: string, work: () => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#lockPool.connect();
    } catch (err) {
      throw this.#unreachable(spreadsheetId, err);
    }
    // A checked-out connection that dies emits here; unheard, that would end the process. Its lock is gone with
    // its session (PostgreSQL releases it): the work goes on, the connection is not reused.
    let broken = false;
    const died = (err: unknown) => {
      broken = true;
      this.#log(`The lock connection of spreadsheet "${spreadsheetId}" was lost during a write turn`, err);
    };
    client.on('error', died);
    try {
      await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [EXCLUSIVE_LOCK_SPACE, spreadsheetId]);
    } catch (err) {
      client.off('error', died);
      client.release(true);
      throw this.#unreachable(spreadsheetId, err);
    }
    try {
      return await work();
    } finally {
      if (!broken) {
        await client
          .query('SELECT pg_advisory_unlock($1, hashtext($2))', [EXCLUSIVE_LOCK_SPACE, spreadsheetId])
          .catch(() => {
            broken = true;
          });
      }
      client.off('error', died);
      client.release(broken);
    }
  }

  /** The service stops: every lease still held is given up (others take over at once) and the locks' pool ends. */
  async close(): Promise<void> {
    this.#stopTimer();
    await Promise.all([...this.#held.values()].map((held) => this.release(held.lease)));
    await this.#lockPool.end().catch(() => {});
  }

  /** What a write answers when the team database cannot be reached for its lock; the details go to the log. */
  #unreachable(spreadsheetId: string, err: unknown): AppError {
    this.#log(`Could not take the write lock of spreadsheet "${spreadsheetId}"`, err);
    return new AppError(
      'internal_error',
      'The team database could not be reached, so the write was not made. Send it again.',
    );
  }

  #lose(held: Held): void {
    if (this.#held.get(held.lease.spreadsheetId) !== held) return;
    this.#held.delete(held.lease.spreadsheetId);
    held.end.abort(ownershipEnded(held.lease.spreadsheetId));
    if (this.#held.size === 0) this.#stopTimer();
  }

  /** Leases that may lapse before the next tick could renew them are lost now: never later than a taker. */
  #loseLapsing(): void {
    const next = performance.now() + this.#period;
    for (const h of [...this.#held.values()]) if (next > h.validUntil) this.#lose(h);
  }

  get #period(): number {
    return Math.max(1, Math.floor(this.#ttlMs / 3));
  }

  #startTimer(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.#renewAll(), this.#period);
    this.#timer.unref();
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Every lease held, renewed in one statement; a lease not renewed (taken over, or unreachable too long) is lost. */
  async #renewAll(): Promise<void> {
    this.#loseLapsing();
    if (this.#renewing || this.#held.size === 0) return;
    this.#renewing = true;
    const ids = [...this.#held.keys()];
    const sentAt = performance.now();
    try {
      const { rows } = await this.#pool.query<{ spreadsheet_id: string }>(RENEW, [
        this.#instanceId,
        ids,
        this.#ttlMs,
      ]);
      const renewed = new Set(rows.map((r) => r.spreadsheet_id));
      for (const id of ids) {
        const h = this.#held.get(id);
        if (!h) continue;
        if (renewed.has(id)) h.validUntil = Math.max(h.validUntil, sentAt + this.#ttlMs);
        else if (h.validUntil < sentAt + this.#ttlMs) this.#lose(h); // not a lease taken after the statement
      }
      if (this.#failing) this.#log('Renewing spreadsheet leases works again');
      this.#failing = false;
    } catch (err) {
      if (!this.#failing) this.#log('Could not renew spreadsheet leases; they lapse after the TTL', err);
      this.#failing = true;
      this.#loseLapsing();
    } finally {
      this.#renewing = false;
    }
  }
}
