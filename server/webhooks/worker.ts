import { RetryStreak } from '../lib/retry-streak.ts';
import type { Deliveries, DeliveryRecord } from '../repositories/deliveries.ts';
import type { Webhooks } from '../repositories/webhooks.ts';
import { targetOf } from './attempt-target.ts';
import { afterFailure } from './retry-policy.ts';

/** What one attempt reports (see sender.ts). */
export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string;
  /** Where it went (see sender.ts); null when no address was reached, absent when the sender cannot say. */
  address?: string | null;
}

export interface WorkerOptions {
  deliveries: Deliveries;
  webhooks: Webhooks;
  now: () => number;
  /** One HTTP attempt (the real sender in production; never throws). */
  send: (input: { url: string; body: Buffer; headers: Record<string, string> }) => Promise<AttemptOutcome>;
  /** The signed headers of one attempt. */
  sign: (input: {
    secret: string;
    deliveryId: string;
    event: string;
    timestampSeconds: number;
    body: Buffer;
  }) => Record<string, string>;
  /** Attempts in flight at once, overall and per webhook: a slow receiver never holds up the others. */
  maxInFlight?: number;
  perWebhook?: number;
  /** How long a claimed delivery is held; after a crash it is claimable again once this passes. */
  claimMs?: number;
  /** Finished deliveries older than this are dropped from the log (default 30 days). */
  retentionMs?: number;
  /** How often to look whether another process committed to the database (default 250 ms). */
  externalPollMs?: number;
  /**
   * Told each time that look finds another process's commit, and on its first look after a start (anything may
   * have been committed while it was not looking): another process may have recorded a change, so the service's
   * tab changes read the change log then. The service's one watch of the database's other writers.
   */
  onOutsideCommit?: () => void;
  log?: (message: string, err?: unknown) => void;
}

// The longest sleep between looks at the due index while something is queued.
const MAX_SLEEP_MS = 1000;
const PURGE_EVERY_MS = 6 * 60 * 60_000;

/**
 * The delivery worker: claims due deliveries from the SQLite outbox under a claim, sends each once, records
 * the attempt and the next state (retry at 30 s / 5 min / 30 min, then failed). It sleeps until the next due
 * time and is woken when a change queues notifications. Work queued by another process (a CLI replay or
 * resume, a second instance) is noticed through SQLite's data_version, polled every `externalPollMs`: one
 * cheap pragma read, and a pump only when some other connection committed.
 */
export class DeliveryWorker {
  readonly #o: Required<Omit<WorkerOptions, 'log' | 'onOutsideCommit'>> &
    Pick<WorkerOptions, 'onOutsideCommit'> & { log: NonNullable<WorkerOptions['log']> };
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #perWebhook = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;
  #externalPoll: NodeJS.Timeout | null = null;
  /** null until the first look after start (which only records it). */
  #externalVersion: number | null = null;
  #running = false;
  /** The pump under way, if any: a second caller waits for it (it loops once more for them). */
  #pumping: Promise<void> | null = null;
  #pumpAgain = false;
  #lastPurge = 0;
  /** The database failing (a full disk): each kind of failure is logged once, claims back off, nothing is lost. */
  readonly #claiming: RetryStreak;
  readonly #settling: RetryStreak;
  readonly #peeking: RetryStreak;

  constructor(options: WorkerOptions) {
    this.#o = {
      maxInFlight: 64,
      perWebhook: 4,
      claimMs: 15_000,
      retentionMs: 30 * 24 * 60 * 60_000,
      externalPollMs: 250,
      log: () => {},
      ...options,
    };
    const streak = (name: string) =>
      new RetryStreak({ name, log: this.#o.log, now: this.#o.now, maxMs: 30_000 });
    this.#claiming = streak('Webhook delivery worker (claiming due deliveries)');
    // The claim runs out and the delivery is sent again: at least once, same delivery id.
    this.#settling = streak('Webhook delivery worker (recording an attempt)');
    this.#peeking = streak('Webhook delivery worker (reading the database version)');
  }

  start(): void {
    this.#running = true;
    this.#externalVersion = null;
    void this.#checkExternal(); // the version as of now; its read settles before the first pump runs
    this.#externalPoll = setInterval(() => void this.#checkExternal(), this.#o.externalPollMs);
    this.#externalPoll.unref();
    this.wake();
  }

  /** Stop claiming and wait for attempts in flight (their results are recorded). */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#externalPoll) clearInterval(this.#externalPoll);
    this.#externalPoll = null;
    // A claim under way still starts its attempts: wait for it, then for them.
    await this.#pumping;
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  /** New work may be due: look now (also while backing off: new work was just stored, so the database writes). */
  wake(): void {
    if (!this.#running) return;
    setImmediate(() => void this.#pump(false, true));
  }

  /** Another process committed something (it may have queued, replayed or resumed): look at the queue. */
  async #checkExternal(): Promise<void> {
    let version: number;
    try {
      version = await this.#o.deliveries.externalVersion();
      this.#peeking.succeeded();
    } catch (err) {
      this.#peeking.failed(err);
      return;
    }
    const first = this.#externalVersion === null;
    if (version === this.#externalVersion) return;
    this.#externalVersion = version;
    if (!first) this.wake();
    this.#o.onOutsideCommit?.();
  }

  /**
   * Send everything due at the current clock and wait until no attempt is in flight (tests move an injected
   * clock, then drain).
   */
  async drain(): Promise<void> {
    for (;;) {
      await this.#pump(true);
      if (this.#inFlight.size === 0) return;
      await Promise.allSettled([...this.#inFlight.values()]);
    }
  }

  #pump(force = false, woken = false): Promise<void> {
    if (!this.#running && !force) return Promise.resolve();
    if (this.#pumping) {
      this.#pumpAgain = true;
      return this.#pumping;
    }
    if (!force && !woken && !this.#claiming.due()) {
      // Backing off after a failure: the timer says when to try again.
      return this.#schedule();
    }
    const pumping = this.#claimUntilNothingNew().then(() => {
      this.#pumping = null;
      // Scheduled once the pump is over: a wake from now on starts a pump of its own.
      return this.#running ? this.#schedule() : undefined;
    });
    this.#pumping = pumping;
    return pumping;
  }

  async #claimUntilNothingNew(): Promise<void> {
    try {
      do {
        this.#pumpAgain = false;
        await this.#claimAndSend();
      } while (this.#pumpAgain);
      await this.#purgeNowAndThen();
      this.#claiming.succeeded();
    } catch (err) {
      this.#claiming.failed(err);
    }
  }

  async #claimAndSend(): Promise<void> {
    const capacity = this.#o.maxInFlight - this.#inFlight.size;
    if (capacity <= 0) return;
    const taken = new Map<string, number>();
    const claimed = await this.#o.deliveries.claimDue(this.#o.now(), capacity, this.#o.claimMs, (d) => {
      if (this.#inFlight.has(d.id)) return false;
      const busy = (this.#perWebhook.get(d.webhookId) ?? 0) + (taken.get(d.webhookId) ?? 0);
      if (busy >= this.#o.perWebhook) return false;
      taken.set(d.webhookId, (taken.get(d.webhookId) ?? 0) + 1);
      return true;
    });
    for (const delivery of claimed) {
      this.#perWebhook.set(delivery.webhookId, (this.#perWebhook.get(delivery.webhookId) ?? 0) + 1);
      const run = this.#attempt(delivery).finally(() => {
        this.#inFlight.delete(delivery.id);
        const left = (this.#perWebhook.get(delivery.webhookId) ?? 1) - 1;
        if (left <= 0) this.#perWebhook.delete(delivery.webhookId);
        else this.#perWebhook.set(delivery.webhookId, left);
        this.wake();
      });
      this.#inFlight.set(delivery.id, run);
    }
  }

  async #attempt(delivery: DeliveryRecord): Promise<void> {
    const { deliveries, webhooks, now } = this.#o;
    const webhook = await webhooks.get(delivery.webhookId);
    const secret = await webhooks.secretOf(delivery.webhookId);
    if (!webhook || secret === null) return; // deleted meanwhile: its deliveries went with it
    const body = Buffer.from(delivery.payload);
    const startedAt = now();
    let outcome: AttemptOutcome;
    let headers: Record<string, string> | null = null;
    try {
      headers = this.#o.sign({
        secret,
        deliveryId: delivery.id,
        event: delivery.event,
        timestampSeconds: Math.floor(startedAt / 1000),
        body,
      });
      outcome = await this.#o.send({ url: webhook.url, body, headers });
    } catch (err) {
      outcome = { ok: false, status: null, durationMs: 0, error: String(err), responseExcerpt: '' };
    }
    const target = targetOf(outcome.address);
    const finishedAt = now();
    const next = outcome.ok
      ? { state: 'succeeded' as const, nextAttemptAt: null, completedAt: finishedAt }
      : (() => {
          const step = afterFailure(delivery.attempts + 1, delivery.replay, finishedAt);
          return { ...step, completedAt: step.state === 'failed' ? finishedAt : null };
        })();
    try {
      await deliveries.settle(
        delivery,
        {
          trigger: delivery.replay ? 'replay' : 'auto',
          startedAt,
          durationMs: outcome.durationMs,
          status: outcome.status,
          error: outcome.error,
          responseExcerpt: outcome.responseExcerpt,
          targetAddress: target.address,
          targetKind: target.kind,
          requestHeaders: headers,
        },
        next,
      );
      this.#settling.succeeded();
    } catch (err) {
      this.#settling.failed(err);
    }
  }

  async #schedule(): Promise<void> {
    this.#setTimer(null);
    let delay: number;
    if (this.#claiming.failures > 0) delay = this.#claiming.waitMs();
    else {
      let due: number | null;
      try {
        due = await this.#o.deliveries.nextDueAt();
      } catch (err) {
        this.#claiming.failed(err);
        due = this.#o.now() + this.#claiming.waitMs();
      }
      if (due === null || !this.#running) return;
      delay = Math.min(MAX_SLEEP_MS, Math.max(0, due - this.#o.now()));
    }
    this.#setTimer(delay);
  }

  /** One timer at most, whichever schedule set it last (two may be under way at once). */
  #setTimer(delay: number | null): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (delay === null) return;
    this.#timer = setTimeout(() => void this.#pump(), delay);
    this.#timer.unref();
  }

  async #purgeNowAndThen(): Promise<void> {
    const nowMs = this.#o.now();
    if (nowMs - this.#lastPurge < PURGE_EVERY_MS) return;
    this.#lastPurge = nowMs;
    await this.#o.deliveries.purgeFinished(nowMs - this.#o.retentionMs);
  }
}
