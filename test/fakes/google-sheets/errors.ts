// Google's JSON error envelope: {"error":{"code","message","status","errors"?}}.
// Sheets v4 answers without the legacy `errors` array; Drive v3 still sends it.

const STATUS_BY_CODE: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

export type LegacyError = {
  message: string;
  domain: string;
  reason: string;
  location?: string;
  locationType?: string;
};

export class GoogleError extends Error {
  readonly code: number;
  readonly status: string;
  readonly errors: LegacyError[] | undefined;
  readonly details: unknown[] | undefined;

  constructor(code: number, message: string, extra: { errors?: LegacyError[]; details?: unknown[] } = {}) {
    super(message);
    this.code = code;
    this.status = STATUS_BY_CODE[code] ?? 'UNKNOWN';
    this.errors = extra.errors;
    this.details = extra.details;
  }

  envelope(): { error: Record<string, unknown> } {
    const error: Record<string, unknown> = { code: this.code, message: this.message };
    if (this.errors) error.errors = this.errors;
    error.status = this.status;
    if (this.details) error.details = this.details;
    return { error };
  }
}

export const badRequest = (message: string): GoogleError => new GoogleError(400, message);

export const sheetsNotFound = (): GoogleError => new GoogleError(404, 'Requested entity was not found.');

export const driveFileNotFound = (fileId: string): GoogleError =>
  new GoogleError(404, `File not found: ${fileId}.`, {
    errors: [
      {
        message: `File not found: ${fileId}.`,
        domain: 'global',
        reason: 'notFound',
        location: 'fileId',
        locationType: 'parameter',
      },
    ],
  });

export const unableToParseRange = (range: string): GoogleError =>
  badRequest(`Unable to parse range: ${range}`);
