/**
 * One large buffer reused from one use to the next, and given back once it has sat unused for a while. A fresh
 * large buffer is a fresh mapping under the allocator settings the `sheetport` command runs with
 * (bin/malloc-tunables.js), whose page faults cost about 3 ms a megabyte on a 2-core VM; keeping it saves that
 * while uses come, and giving it back when they stop keeps an idle service's memory what it was before them.
 */
import { freeBytes } from './free-buffer.ts';
import { type Cancel, realTimers, type Timers } from './timers.ts';

export class KeptBuffer {
  readonly size: number;
  readonly #idleMs: number;
  readonly #timers: Timers;
  #buffer: Buffer | null = null;
  #usedSinceCheck = false;
  #check: Cancel | null = null;

  /** Given back between `idleMs` and twice that after its last `take`. */
  constructor(size: number, idleMs: number, timers: Timers = realTimers) {
    this.size = size;
    this.#idleMs = idleMs;
    this.#timers = timers;
  }

  /** The buffer, made now if it was not held. Its bytes are the caller's until its next `take`, no longer. */
  take(): Buffer {
    this.#buffer ??= Buffer.allocUnsafe(this.size);
    this.#usedSinceCheck = true;
    this.#check ??= this.#timers.after(this.#idleMs, this.#release);
    return this.#buffer;
  }

  /** Whether the buffer is held now. */
  get held(): boolean {
    return this.#buffer !== null;
  }

  /** Looked at every `idleMs` while held: let go when nothing took it since the last look. */
  readonly #release = (): void => {
    this.#check = null;
    if (this.#usedSinceCheck) {
      this.#usedSinceCheck = false;
      this.#check = this.#timers.after(this.#idleMs, this.#release);
      return;
    }
    if (this.#buffer) freeBytes(this.#buffer);
    this.#buffer = null;
  };
}
