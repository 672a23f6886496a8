/**
 * The local admin token of `/admin`, kept in the data dir's secrets provider (store/admin-token.ts creates it
 * under the database's write lock, so a server and a CLI starting together agree on one).
 *
 * Synchronous on purpose: it is read once while the service is wired, before it serves anything, and a running
 * server holds it in memory (http/admin-access.ts); no request waits on it.
 */
export interface AdminTokens {
  /** The token, created on first use (an older version's token file is taken over). */
  loadOrCreate(): string;
  /** A new token in place of the old one. */
  rotate(): string;
}
