/**
 * `Idempotency-Key` records, scoped per API key (http/idempotency.ts runs the flow):
 *   begin() -> 'new': run the request, then complete() with the response (or abandon() if it failed);
 *           -> 'replay': send the stored response, write nothing;
 *           -> 'conflict': the key was used for a different request: 409 idempotency_conflict;
 *           -> 'in_progress': the first request with this key is still running: 409 conflict.
 * store/idempotency.ts is the SQLite implementation (answers sealed at rest, records kept 24 h).
 */

export type BeginResult =
  | { state: 'new' }
  | { state: 'replay'; status: number; body: string; contentType: string }
  | { state: 'conflict' }
  | { state: 'in_progress' };

export interface Idempotency {
  /** Atomic across processes: two requests with one key never both see 'new'. */
  begin(apiKeyId: string, idemKey: string, fingerprint: string): Promise<BeginResult>;
  /** Store the response of a request begun with begin(); later repeats replay it. */
  complete(
    apiKeyId: string,
    idemKey: string,
    status: number,
    contentType: string,
    body: string,
  ): Promise<void>;
  /** Forget a pending request (it failed), so the client may retry with the same key. */
  abandon(apiKeyId: string, idemKey: string): Promise<void>;
  /** Delete records older than the TTL; how many were deleted. */
  purgeExpired(): Promise<number>;
}
