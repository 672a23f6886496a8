/**
 * Google's failures as the API's errors (docs/api.md), each with a message that says what to do. Nothing of Google's own
 * wording is copied into a message: answers can echo request details, and tokens must never reach a client or a
 * log. Only checked words (an API's host name, a project number, a quota's name) are taken from the answer.
 *   429 / 5xx / no answer -> 503 upstream_unavailable with retry_after (Retry-After)
 *   revoked or expired grant (401, invalid_grant) -> 502 upstream_error, reason google_login_required
 *   403 PERMISSION_DENIED -> 502 upstream_error, reason google_access_denied
 *   403 SERVICE_DISABLED (accessNotConfigured) -> 502 upstream_error, reason google_error, google_api
 *   400 FAILED_PRECONDITION "not supported for this document" -> 502 upstream_error, reason not_a_workbook
 *   400 "Unable to parse range" / "No grid with id" -> 404 sheet_not_found
 *   404 -> spreadsheet_not_found (Drive's 404 only once Sheets agrees: freshness.ts); anything else -> 502
 *   upstream_error, reason google_error
 */
import { AppError } from '../../errors.ts';
import { type GoogleAnswer, readAnswer } from './google-answer.ts';

/** Seconds a client is told to wait when Google gives no Retry-After of its own. */
export const DEFAULT_RETRY_AFTER_S = 30;
/** Sheets' quotas are per minute: past one, the next minute has room again. */
const PER_MINUTE_RETRY_AFTER_S = 60;

export type FailureClass =
  | 'transient'
  | 'login'
  | 'not_found'
  | 'access_denied'
  | 'api_disabled'
  | 'not_a_spreadsheet'
  | 'tab_gone'
  | 'other';

/** Drive's legacy rate-limit refusals come as 403: they pass like a 429. */
const RATE_LIMIT_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded']);

function classifyAnswer(answer: GoogleAnswer): FailureClass {
  const { httpStatus: status, reasons, info } = answer;
  // An OAuth token endpoint's error (invalid_grant: revoked or expired; invalid_client ...): a new login is the fix.
  if (answer.oauthError !== undefined || status === 401) return 'login';
  if (status === undefined || status === 408 || status === 429 || status >= 500) return 'transient';
  if (status === 404) return 'not_found';
  if (status === 403) {
    if (reasons.some((r) => RATE_LIMIT_REASONS.has(r))) return 'transient';
    if (info?.reason === 'SERVICE_DISABLED' || reasons.includes('accessNotConfigured')) return 'api_disabled';
    // A token granted before SheetPort asked for a scope it needs now: logging in again grants it.
    if (info?.reason === 'ACCESS_TOKEN_SCOPE_INSUFFICIENT') return 'login';
    return 'access_denied';
  }
  if (status === 400) {
    if (answer.status === 'FAILED_PRECONDITION' || reasons.includes('failedPrecondition'))
      return 'not_a_spreadsheet';
    if (/^Unable to parse range:|No grid with id:/.test(answer.message)) return 'tab_gone';
  }
  return 'other';
}

export function classify(err: unknown): FailureClass {
  if (err instanceof AppError) return 'other';
  return classifyAnswer(readAnswer(err));
}

/** True when Google surely did not apply the request (it said so: 429 quota or 400-class refusals). */
export function surelyNotApplied(err: unknown): boolean {
  const status = readAnswer(err).httpStatus;
  return status !== undefined && status < 500;
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

/** Google's per-minute quota, spent: how long to wait and which limit it was (a checked CamelCase word). */
function quotaSpent(answer: GoogleAnswer): AppError {
  const limit = answer.info?.metadata.quota_limit;
  const named = limit && /^[A-Za-z]+$/.test(limit) ? ` (${limit})` : '';
  const header = Number(answer.retryAfter);
  const perMinute = !limit || /PerMinute/.test(limit);
  const retryAfter =
    Number.isFinite(header) && header > 0
      ? Math.ceil(header)
      : perMinute
        ? PER_MINUTE_RETRY_AFTER_S
        : DEFAULT_RETRY_AFTER_S;
  return new AppError(
    'upstream_unavailable',
    `Google's per-minute Sheets quota for this Google account is used up${named}; nothing was written. ` +
      `Try again after ${retryAfter} seconds, or spread the requests out.`,
    { retry_after: retryAfter },
  );
}

function transient(answer: GoogleAnswer): AppError {
  if (answer.httpStatus === 429 || answer.status === 'RESOURCE_EXHAUSTED') return quotaSpent(answer);
  const header = Number(answer.retryAfter);
  return unavailable(Number.isFinite(header) && header > 0 ? Math.ceil(header) : DEFAULT_RETRY_AFTER_S);
}

const API_NAMES: Record<string, string> = {
  'sheets.googleapis.com': 'Google Sheets API',
  'drive.googleapis.com': 'Google Drive API',
};

/** The API the OAuth client's Cloud project has not enabled, and where to enable it (from checked words only). */
function apiDisabled(answer: GoogleAnswer): AppError {
  const meta = answer.info?.metadata ?? {};
  const fromMessage = /\b(sheets|drive)\.googleapis\.com\b/.exec(answer.message)?.[0];
  const service = meta.service && API_NAMES[meta.service] ? meta.service : fromMessage;
  const project =
    /^projects\/(\d+)$/.exec(meta.consumer ?? '')?.[1] ?? /project[= ](\d+)/.exec(answer.message)?.[1];
  const name = service ? API_NAMES[service] : 'Google Sheets API or Google Drive API';
  const where =
    service && project
      ? `https://console.developers.google.com/apis/api/${service}/overview?project=${project}`
      : 'https://console.cloud.google.com/apis/library';
  return new AppError(
    'upstream_error',
    `The ${name} is not enabled in the Google Cloud project of SheetPort's OAuth client ` +
      `(SHEETPORT_GOOGLE_CLIENT_ID): enable it at ${where}, wait a few minutes, then try again.`,
    { reason: 'google_error', ...(service ? { google_api: service } : {}) },
  );
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const answer = readAnswer(err);
  switch (classifyAnswer(answer)) {
    case 'transient':
      return transient(answer);
    case 'login':
      return loginRequired();
    case 'not_found':
      return new AppError(
        'spreadsheet_not_found',
        'Google has no spreadsheet with this id (it may have been deleted); check the id or URL.',
      );
    case 'access_denied':
      return new AppError(
        'upstream_error',
        'The signed-in Google account may not open this spreadsheet (or, for a write, edit it): share it with ' +
          'that account in Google Sheets (as an editor, to write), or run `sheetport login google` with an ' +
          'account that can.',
        { reason: 'google_access_denied' },
      );
    case 'api_disabled':
      return apiDisabled(answer);
    case 'not_a_spreadsheet':
      return new AppError(
        'upstream_error',
        'This Google Drive file is not a Google Sheets spreadsheet (an uploaded .xlsx or .csv, or another kind ' +
          'of file): open it in Google Sheets, choose File > Save as Google Sheets, and connect the new ' +
          "spreadsheet's URL.",
        { reason: 'not_a_workbook' },
      );
    case 'tab_gone':
      return new AppError(
        'sheet_not_found',
        'This tab is no longer in the Google spreadsheet (deleted or renamed in Google Sheets); nothing was ' +
          'written. `GET /v1/spreadsheets/{spreadsheet_id}` lists the tabs it has now.',
      );
    default: {
      const status = answer.httpStatus;
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
