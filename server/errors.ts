/**
 * One error type for the whole service. Every failure that reaches a client is an AppError with one of the
 * codes docs/api.md lists ("Errors"); the error middleware turns it into the envelope
 * `{"error":{code,message,request_id,...}}`.
 */
export type ErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'spreadsheet_not_found'
  | 'sheet_not_found'
  | 'row_not_found'
  | 'not_found'
  | 'method_not_allowed'
  | 'invalid_parameter'
  | 'invalid_body'
  | 'unknown_field'
  | 'conflict'
  | 'idempotency_conflict'
  | 'ambiguous_key'
  | 'too_many_rows'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'unsupported_media_type'
  | 'headers_too_large'
  | 'locked'
  | 'insufficient_storage'
  | 'rate_limit_exceeded'
  | 'upstream_error'
  | 'upstream_unavailable'
  | 'internal_error';

const STATUS: Record<ErrorCode, number> = {
  unauthorized: 401,
  forbidden: 403,
  spreadsheet_not_found: 404,
  sheet_not_found: 404,
  row_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  invalid_parameter: 400,
  invalid_body: 400,
  unknown_field: 400,
  conflict: 409,
  idempotency_conflict: 409,
  ambiguous_key: 409,
  too_many_rows: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  headers_too_large: 431,
  locked: 423,
  insufficient_storage: 507,
  rate_limit_exceeded: 429,
  upstream_error: 502,
  upstream_unavailable: 503,
  internal_error: 500,
};

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra fields merged into the `error` object of the envelope (e.g. `field`, `parameter`, `index`). */
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = STATUS[code];
    this.details = details;
  }
}

export function statusOf(code: ErrorCode): number {
  return STATUS[code];
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
