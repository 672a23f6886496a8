/**
 * An exact rolling one-second window: a ring of the last `limit` accepted request times. A request is allowed
 * when fewer than `limit` requests were accepted in the past `windowMs`, i.e. when the oldest of the last
 * `limit` accepted requests is at least `windowMs` old. No fixed buckets, so no double burst at a boundary.
 */
export class RollingWindow {
  readonly limit: number;
  readonly windowMs: number;
  readonly #times: Float64Array;
  /** Index of the oldest stored time; the ring is full once `#count === limit`. */
  #head = 0;
  #count = 0;

  constructor(limit: number, windowMs = 1000) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.#times = new Float64Array(Math.max(limit, 1));
  }

  /** Requests accepted in the window ending at `now`. */
  used(now: number): number {
    this.#expire(now);
    return this.#count;
  }

  /** Accept (and record) a request at `now`, or refuse it without recording anything. */
  tryAcquire(now: number): boolean {
    if (this.limit <= 0) return false;
    this.#expire(now);
    if (this.#count >= this.limit) return false;
    this.#times[(this.#head + this.#count) % this.limit] = now;
    this.#count++;
    return true;
  }

  /** When the oldest request in the window leaves it (ms epoch), or `now` when the window is empty. */
  resetAt(now: number): number {
    this.#expire(now);
    return this.#count === 0 ? now : this.#times[this.#head]! + this.windowMs;
  }

  #expire(now: number): void {
    while (this.#count > 0 && this.#times[this.#head]! <= now - this.windowMs) {
      this.#head = (this.#head + 1) % this.limit;
      this.#count--;
    }
  }
}
