/**
 * What a background task (a timer, a worker loop) does about a failure it cannot answer anyone with, such as a
 * full disk: it survives it, says so once (not once a second), waits longer after each failure in a row (up to a
 * cap), and says when it works again. One instance per task.
 */
export interface RetryStreakOptions {
  /** What the log lines call the task ("Saving usage counts"). */
  name: string;
  log: (message: string, err?: unknown) => void;
  /** Epoch ms. */
  now?: () => number;
  /** The wait after the first failure; doubled after each further one, up to `maxMs`. */
  minMs?: number;
  maxMs?: number;
}

export class RetryStreak {
  readonly #o: Required<RetryStreakOptions>;
  #failures = 0;
  #notBefore = 0;

  constructor(options: RetryStreakOptions) {
    this.#o = { now: Date.now, minMs: 1000, maxMs: 60_000, ...options };
  }

  /** Failures in a row so far (0 while the task works). */
  get failures(): number {
    return this.#failures;
  }

  /** Milliseconds until the task is due again (0 when it is). */
  waitMs(): number {
    return this.#failures === 0 ? 0 : Math.max(0, this.#notBefore - this.#o.now());
  }

  /** Whether the task should run now (false while waiting after a failure). */
  due(): boolean {
    return this.#failures === 0 || this.#o.now() >= this.#notBefore;
  }

  succeeded(): void {
    if (this.#failures === 0) return;
    this.#o.log(`${this.#o.name} works again after ${this.#failures} failed attempt(s)`);
    this.#failures = 0;
    this.#notBefore = 0;
  }

  failed(err: unknown): void {
    this.#failures++;
    const wait = Math.min(this.#o.maxMs, this.#o.minMs * 2 ** (this.#failures - 1));
    this.#notBefore = this.#o.now() + wait;
    if (this.#failures === 1)
      this.#o.log(`${this.#o.name} failed; retrying with backoff (logged once until it works again)`, err);
  }

  /** Run `task` if due; a throw is a failure (logged once per streak), never passed on. */
  run(task: () => void): void {
    if (!this.due()) return;
    try {
      task();
    } catch (err) {
      this.failed(err);
      return;
    }
    this.succeeded();
  }

  /** `run` for a task that awaits (a repository's write). */
  async runAsync(task: () => Promise<void>): Promise<void> {
    if (!this.due()) return;
    try {
      await task();
    } catch (err) {
      this.failed(err);
      return;
    }
    this.succeeded();
  }
}

/**
 * For failures that come with no "it works again" signal (a log stream's write errors): the first is reported,
 * the next ones at most once per `windowMs`, with how many were not.
 */
export function throttledReport(
  name: string,
  log: (message: string, err?: unknown) => void,
  windowMs = 60_000,
  now: () => number = Date.now,
): (err: unknown) => void {
  let last = Number.NEGATIVE_INFINITY;
  let quiet = 0;
  return (err) => {
    if (now() - last < windowMs) {
      quiet++;
      return;
    }
    log(quiet > 0 ? `${name} failed (and ${quiet} more time(s) not reported)` : `${name} failed`, err);
    last = now();
    quiet = 0;
  };
}
