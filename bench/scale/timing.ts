/** Timing helpers of the scale benchmark: timed HTTP calls with a deadline, samples, and how a time is shown. */

export interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** An HTTP answer other than the expected status, with what the server said. */
export class HttpError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(status: number, body: string, call: Call) {
    super(`${call.method} ${call.url}: HTTP ${status} ${body.slice(0, 300)}`);
    this.status = status;
    this.body = body;
  }
}

/** Sends `call`, reads the whole answer, and resolves to it parsed; rejects on a non-2xx status or after `timeoutMs`. */
export async function send(call: Call, timeoutMs = 300_000): Promise<unknown> {
  const res = await fetch(call.url, {
    method: call.method,
    headers: { ...call.headers, ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new HttpError(res.status, text, call);
  return text === '' ? null : JSON.parse(text);
}

/** `send` timed, in ms. */
export async function timed(call: Call, timeoutMs?: number): Promise<number> {
  const started = performance.now();
  await send(call, timeoutMs);
  return performance.now() - started;
}

/**
 * Times `make(i)` one request after another, up to `maxCount` of them or until `budgetMs` has passed (at least
 * `minCount` regardless), and returns the times in order.
 */
export async function sample(
  make: (i: number) => Call,
  { maxCount, budgetMs, minCount = 3 }: { maxCount: number; budgetMs: number; minCount?: number },
): Promise<number[]> {
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < maxCount; i++) {
    if (i >= minCount && performance.now() - started > budgetMs) break;
    times.push(await timed(make(i)));
  }
  return times;
}

export const percentile = (times: number[], p: number): number => {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** 0.8 ms, 12 ms, 1.23 s, 14.5 s. */
export function showMs(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return ms < 10_000 ? `${(ms / 1000).toFixed(2)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** first / median / max of a run of writes, in the order they were made. */
export const showWrites = (times: number[]): string =>
  times.length === 0
    ? '-'
    : `${showMs(times[0]!)} / ${showMs(percentile(times, 50))} / ${showMs(Math.max(...times))}`;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
