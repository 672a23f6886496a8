/**
 * The repositories: small async interfaces over the stored records, which routes, use cases and the CLI depend
 * on instead of a database. store/ holds the embedded SQLite implementation (store/sqlite-repositories.ts opens
 * them all on a data dir); a network database can implement the same interfaces. The change log and the
 * baselines have theirs beside these (change-log.ts, baselines.ts).
 */
import type { AdminTokens } from './admin-token.ts';
import type { Connections } from './connections.ts';
import type { Deliveries } from './deliveries.ts';
import type { DeliveryLog } from './delivery-log.ts';
import type { Idempotency } from './idempotency.ts';
import type { Keys } from './keys.ts';
import type { Usage } from './usage.ts';
import type { Webhooks } from './webhooks.ts';

export interface Repositories {
  keys: Keys;
  connections: Connections;
  webhooks: Webhooks;
  deliveries: Deliveries;
  /** The delivery log across webhooks (the dashboard's view). */
  deliveryLog: DeliveryLog;
  usage: Usage;
  idempotency: Idempotency;
  adminTokens: AdminTokens;
}
