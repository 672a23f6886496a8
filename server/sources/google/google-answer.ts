/**
 * What a failed Google call said, read from the error Google's clients throw (gaxios: `response.status`,
 * `response.data`): the HTTP status, the OAuth token endpoint's `error` word, and the JSON error envelope's
 * `status`, `message`, legacy `errors[].reason` and the `ErrorInfo` of `details[]`. Pure: nothing here decides
 * what the failure means for a SheetPort client (errors.ts does).
 */

export interface GoogleAnswer {
  /** HTTP status; undefined when no answer came (a timeout, a refused connection). */
  httpStatus: number | undefined;
  /** The token endpoint's error (`invalid_grant`, `invalid_client`, ...), when the call was an OAuth one. */
  oauthError: string | undefined;
  /** The envelope's status word (`NOT_FOUND`, `PERMISSION_DENIED`, `FAILED_PRECONDITION`, ...). */
  status: string | undefined;
  message: string;
  /** Legacy `errors[].reason` words (`accessNotConfigured`, `failedPrecondition`, `userRateLimitExceeded`). */
  reasons: string[];
  /** The `ErrorInfo` of `details[]`: its reason (`SERVICE_DISABLED`, `RATE_LIMIT_EXCEEDED`) and metadata. */
  info: { reason: string; metadata: Record<string, string> } | undefined;
  /** The Retry-After header, if Google sent one. */
  retryAfter: string | undefined;
}

interface Thrown {
  status?: unknown;
  response?: { status?: unknown; headers?: unknown; data?: unknown };
}

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

function headerValue(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

function errorInfoOf(details: unknown): GoogleAnswer['info'] {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const d = record(detail);
    if (!d || d['@type'] !== ERROR_INFO || typeof d.reason !== 'string') continue;
    const metadata: Record<string, string> = {};
    for (const [key, value] of Object.entries(record(d.metadata) ?? {}))
      if (typeof value === 'string') metadata[key] = value;
    return { reason: d.reason, metadata };
  }
  return undefined;
}

export function readAnswer(err: unknown): GoogleAnswer {
  const thrown = (err ?? {}) as Thrown;
  const status = thrown.response?.status ?? thrown.status;
  const data = record(thrown.response?.data);
  const envelope = record(data?.error);
  const reasons = Array.isArray(envelope?.errors)
    ? envelope.errors.map((e) => text(record(e)?.reason)).filter((r): r is string => r !== undefined)
    : [];
  return {
    httpStatus: typeof status === 'number' ? status : undefined,
    oauthError: text(data?.error),
    status: text(envelope?.status),
    message: text(envelope?.message) ?? '',
    reasons,
    info: errorInfoOf(envelope?.details),
    retryAfter: headerValue(thrown.response?.headers, 'retry-after'),
  };
}
