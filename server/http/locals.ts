import type { Response } from 'express';
import type { ApiKeyRecord } from '../repositories/keys.ts';

/** What the middleware chain learns about a request, kept on `res.locals` with one typed accessor. */
export interface RequestLocals {
  requestId: string;
  /** The authenticated API key; absent for unauthenticated routes. */
  apiKey?: ApiKeyRecord;
  /** Set instead of `apiKey` for an unauthenticated GET of a public-read connection: `ip:<address>`. */
  anonymousSubject?: string;
  /**
   * The SHA-256 of the request body's bytes, taken as they were checked (body.ts) when the request carries an
   * Idempotency-Key: its fingerprint (idempotency.ts), cheaper than serializing the parsed body again.
   */
  bodyDigest?: string;
}

export function locals(res: Response): RequestLocals {
  return res.locals as RequestLocals;
}
