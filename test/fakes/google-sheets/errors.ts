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
  extendedHelp?: string;
};

export class GoogleError extends Error {
  readonly code: number;
  readonly status: string;
  readonly errors: LegacyError[] | undefined;
  readonly details: unknown[] | undefined;

  constructor(
    code: number,
    message: string,
    extra: { errors?: LegacyError[]; details?: unknown[]; status?: string } = {},
  ) {
    super(message);
    this.code = code;
    // A few answers pair a code with another status word (400 FAILED_PRECONDITION).
    this.status = extra.status ?? STATUS_BY_CODE[code] ?? 'UNKNOWN';
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

/** Sheets, for a spreadsheet that exists but is not shared with the caller (Drive hides it behind a 404). */
export const permissionDenied = (): GoogleError =>
  new GoogleError(403, 'The caller does not have permission');

/** Sheets, for a Drive file that is not a Google spreadsheet (an uploaded .xlsx, a PDF, a folder). */
export const notSupportedForDocument = (): GoogleError => {
  const message = 'This operation is not supported for this document';
  return new GoogleError(400, message, {
    status: 'FAILED_PRECONDITION',
    errors: [{ message, domain: 'global', reason: 'failedPrecondition' }],
  });
};

export type GoogleApi = 'sheets' | 'drive';

const API_TITLES: Record<GoogleApi, string> = { sheets: 'Google Sheets API', drive: 'Google Drive API' };

/** Any call to an API the OAuth client's Cloud project has not enabled (ESF's answer, legacy `errors` included). */
export const serviceDisabled = (api: GoogleApi, projectNumber: string): GoogleError => {
  const service = `${api}.googleapis.com`;
  const title = API_TITLES[api];
  const activationUrl = `https://console.developers.google.com/apis/api/${service}/overview?project=${projectNumber}`;
  const message =
    `${title} has not been used in project ${projectNumber} before or it is disabled. Enable it by visiting ` +
    `${activationUrl} then retry. If you enabled this API recently, wait a few minutes for the action to ` +
    'propagate to our systems and retry.';
  return new GoogleError(403, message, {
    errors: [
      {
        message,
        domain: 'usageLimits',
        reason: 'accessNotConfigured',
        extendedHelp: 'https://console.developers.google.com',
      },
    ],
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'SERVICE_DISABLED',
        domain: 'googleapis.com',
        metadata: {
          service,
          consumer: `projects/${projectNumber}`,
          activationUrl,
          serviceTitle: title,
          containerInfo: projectNumber,
        },
      },
      { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message },
      {
        '@type': 'type.googleapis.com/google.rpc.Help',
        links: [{ description: 'Google developers console API activation', url: activationUrl }],
      },
    ],
  });
};

/** Sheets' per-minute per-user quota spent: 429 with the quota metric in an ErrorInfo. */
export const quotaExceeded = (kind: 'read' | 'write', projectNumber: string): GoogleError => {
  const metric = kind === 'read' ? 'Read requests' : 'Write requests';
  const quotaLimit = kind === 'read' ? 'ReadRequestsPerMinutePerUser' : 'WriteRequestsPerMinutePerUser';
  return new GoogleError(
    429,
    `Quota exceeded for quota metric '${metric}' and limit '${metric} per minute per user' of service 'sheets.googleapis.com' for consumer 'project_number:${projectNumber}'.`,
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
            consumer: `projects/${projectNumber}`,
          },
        },
      ],
    },
  );
};
