import type { Replica } from '../replica/replica.ts';
import type { ApiKeyStore } from '../store/api-keys.ts';
import type { ConnectionStore } from '../store/connections.ts';
import type { IdempotencyStore } from '../store/idempotency.ts';

/** Everything the HTTP layer needs, built once by the caller (serve, tests, Electron) and passed in. */
export interface AppDeps {
  connections: ConnectionStore;
  keys: ApiKeyStore;
  idempotency: IdempotencyStore;
  replica: Replica;
  /** Extra `Host` names to accept besides loopback (a tunnel). */
  allowedHosts: readonly string[];
  log: (message: string, err?: unknown) => void;
}
