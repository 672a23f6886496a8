// Test switches: fail the next N API calls with 429/500/503, add latency, and count Sheets quota
// per user per minute (Google: 60 reads and 60 writes per minute per user; configurable here).
import { GoogleError } from './errors.ts';
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
    const metric = kind === 'read' ? 'Read requests' : 'Write requests';
    const quotaLimit = kind === 'read' ? 'ReadRequestsPerMinutePerUser' : 'WriteRequestsPerMinutePerUser';
    throw new GoogleError(
      429,
      `Quota exceeded for quota metric '${metric}' and limit '${metric} per minute per user' of service 'sheets.googleapis.com' for consumer 'project_number:0'.`,
      {
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'RATE_LIMIT_EXCEEDED',
            domain: 'googleapis.com',
            metadata: {
              service: 'sheets.googleapis.com',
              quota_metric: `sheets.googleapis.com/${kind}_requests`,
              quota_limit: quotaLimit,
              consumer: 'projects/0',
            },
          },
        ],
      },
    );
  }
}
