// Test switches: fail the next N API calls with 429/500/503, add latency, count Sheets quota per user per
// minute (Google: 60 reads and 60 writes per minute per user; configurable here), turn an API off in the
// client's project (403 SERVICE_DISABLED), and let an edit land just before the next write.
import { type GoogleApi, GoogleError, quotaExceeded, serviceDisabled } from './errors.ts';
import type { QuotaKind } from './http-types.ts';
import type { Clock } from './store.ts';

export type FailureStatus = 429 | 500 | 503;

export type QuotaLimits = { readsPerMinute: number; writesPerMinute: number };

const FAILURE_MESSAGES: Record<FailureStatus, string> = {
  429: 'Resource has been exhausted (e.g. check quota).',
  500: 'Internal error encountered.',
  503: 'The service is currently unavailable.',
};

export class Switches {
  /** Scheduled failures, in order; one with `only` fails only a call of that quota kind (e.g. the next write). */
  private failures: { status: FailureStatus; only?: QuotaKind }[] = [];
  private afterWrite: { count: number; status: FailureStatus } | undefined;
  latencyMs = 0;
  quota: QuotaLimits | undefined;
  /** The number of the Cloud project the OAuth client belongs to, as Google's quota and activation errors name it. */
  projectNumber = '0';
  /** APIs not enabled in that project: every call to them answers 403 SERVICE_DISABLED. */
  readonly disabledApis = new Set<GoogleApi>();
  #beforeNextWrite: (() => void | Promise<void>) | undefined;
  private readonly windows = new Map<string, { minute: number; count: number }>();
  private readonly clock: Clock;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  failNext(count: number, status: FailureStatus = 503, only?: QuotaKind): void {
    for (let i = 0; i < count; i++) this.failures.push(only ? { status, only } : { status });
  }

  /** Once the next write call has succeeded, fail the `count` calls after it (Google down right after a write). */
  failAfterNextWrite(count: number, status: FailureStatus = 503): void {
    this.afterWrite = { count, status };
  }

  /** Called when a write call succeeded: arms the failures `failAfterNextWrite` asked for. */
  wrote(): void {
    if (!this.afterWrite) return;
    this.failNext(this.afterWrite.count, this.afterWrite.status);
    this.afterWrite = undefined;
  }

  /** Runs `action` just before the next write call is handled: someone else's edit landing in that instant. */
  beforeNextWrite(action: () => void | Promise<void>): void {
    this.#beforeNextWrite = action;
  }

  /** Called before a write call: runs (once) what `beforeNextWrite` asked for. */
  async aboutToWrite(): Promise<void> {
    const action = this.#beforeNextWrite;
    this.#beforeNextWrite = undefined;
    await action?.();
  }

  /** Throws Google's SERVICE_DISABLED answer when `api` is not enabled in the client's project. */
  checkEnabled(api: GoogleApi | undefined): void {
    if (api && this.disabledApis.has(api)) throw serviceDisabled(api, this.projectNumber);
  }

  clearFailures(): void {
    this.failures = [];
    this.afterWrite = undefined;
  }

  /** Throws the next scheduled failure that applies to a call of this quota kind, if any. */
  takeFailure(kind: QuotaKind): void {
    const at = this.failures.findIndex((f) => f.only === undefined || f.only === kind);
    if (at < 0) return;
    const [{ status }] = this.failures.splice(at, 1) as [{ status: FailureStatus }];
    throw new GoogleError(status, FAILURE_MESSAGES[status]);
  }

  /** Counts one call against the user's per-minute window; 429 past the limit (Google's message). */
  charge(user: string, kind: QuotaKind): void {
    if (!this.quota || kind === 'none') return;
    const limit = kind === 'read' ? this.quota.readsPerMinute : this.quota.writesPerMinute;
    const minute = Math.floor(this.clock() / 60_000);
    const key = `${user}:${kind}`;
    const window = this.windows.get(key);
    const current = window && window.minute === minute ? window : { minute, count: 0 };
    current.count += 1;
    this.windows.set(key, current);
    if (current.count <= limit) return;
    throw quotaExceeded(kind, this.projectNumber);
  }
}
