/**
 * Google's failures as contract errors. Nothing of Google's answer is copied into a message except its status
 * words: answers can echo request details, and tokens must never reach a client or a log.
 *   429 / 5xx / no answer -> 503 upstream_unavailable with retry_after (Retry-After)
 *   revoked or expired grant (401, invalid_grant) -> 502 upstream_error, reason google_login_required
 *   404 -> spreadsheet_not_found; anything else -> 502 upstream_error, reason google_error
 */
import { AppError } from '../../errors.ts';

/** Seconds a client is told to wait when Google gives no Retry-After of its own. */
export const DEFAULT_RETRY_AFTER_S = 30;

interface GoogleFailure {
  status?: number;
  code?: string | number;
  response?: { status?: number; headers?: unknown; data?: unknown };
}

export type FailureClass = 'transient' | 'login' | 'not_found' | 'other';

function statusOf(err: unknown): number | undefined {
  const e = err as GoogleFailure;
  const status = e?.response?.status ?? e?.status;
  return typeof status === 'number' ? status : undefined;
}

function oauthErrorOf(err: unknown): string | undefined {
  const data = (err as GoogleFailure)?.response?.data as { error?: unknown } | undefined;
  return typeof data?.error === 'string' ? data.error : undefined;
}

export function classify(err: unknown): FailureClass {
  if (err instanceof AppError) return 'other';
  const status = statusOf(err);
  // An OAuth token endpoint's error (invalid_grant: revoked or expired; invalid_client ...): a new login is the fix.
  if (oauthErrorOf(err) !== undefined || status === 401) return 'login';
  if (status === undefined || status === 408 || status === 429 || status >= 500) return 'transient';
  if (status === 404) return 'not_found';
  return 'other';
}

/** True when Google surely did not apply the request (it said so: 429 quota or 400-class refusals). */
export function surelyNotApplied(err: unknown): boolean {
  const status = statusOf(err);
  return status !== undefined && status < 500;
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

function retryAfterOf(err: unknown): number {
  const raw = headerValue((err as GoogleFailure)?.response?.headers, 'retry-after');
  const seconds = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : DEFAULT_RETRY_AFTER_S;
}

export function loginRequired(): AppError {
  return new AppError(
    'upstream_error',
    'The Google login for this spreadsheet is missing, expired or revoked; run `sheetport login google` again.',
    { reason: 'google_login_required' },
  );
}

export function unavailable(retryAfter = DEFAULT_RETRY_AFTER_S): AppError {
  return new AppError(
    'upstream_unavailable',
    'Google Sheets is not answering or is over its quota right now; try again later.',
    { retry_after: retryAfter },
  );
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  switch (classify(err)) {
    case 'transient':
      return unavailable(retryAfterOf(err));
    case 'login':
      return loginRequired();
    case 'not_found':
      return new AppError(
        'spreadsheet_not_found',
        'Google says this spreadsheet does not exist (or was deleted).',
      );
    default: {
      const status = statusOf(err);
      return new AppError(
        'upstream_error',
        `Google Sheets refused the request (HTTP ${status ?? 'error'}).`,
        {
          reason: 'google_error',
          ...(status !== undefined ? { upstream_status: status } : {}),
        },
      );
    }
  }
}
