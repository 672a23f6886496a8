import type { RateLimiter } from '../limits/rate-limiter.ts';
import type { ChangeLog } from '../repositories/change-log.ts';
import type { SourceOptions } from '../sources/index.ts';
import type { Spreadsheets } from '../spreadsheets/spreadsheets.ts';
import type { ApiKeyStore } from '../store/api-keys.ts';
import type { ConnectionStore } from '../store/connections.ts';
import type { DeliveryStore } from '../store/deliveries.ts';
import type { DeliveryLogQuery } from '../store/delivery-log.ts';
import type { IdempotencyStore } from '../store/idempotency.ts';
import type { UsageStore } from '../store/usage.ts';
import type { WebhookStore } from '../store/webhooks.ts';
import type { AdminAccess } from './admin-access.ts';

/** Everything the HTTP layer needs, built once by the caller (serve, tests, Electron) and passed in. */
export interface AppDeps {
  connections: ConnectionStore;
  keys: ApiKeyStore;
  idempotency: IdempotencyStore;
  /** Every connected spreadsheet: reads, writes, tab lookups and looks for outside changes go through it. */
  spreadsheets: Spreadsheets;
  usage: UsageStore;
  /** Per-key limits; null turns rate limiting off (`sheetport serve --no-rate-limits`). */
  limiter: RateLimiter | null;
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  /** The delivery log across webhooks (the dashboard's view). */
  deliveryLog: DeliveryLogQuery;
  changeLog: ChangeLog;
  /** Webhook URLs may point at private (LAN) addresses. */
  allowLanWebhooks: boolean;
  /** Who may call the loopback-only `/admin` API: the admin token, sign-in codes and dashboard sessions. */
  adminAccess: AdminAccess;
  /** The data dir: the admin API reads the request log in `<data dir>/logs/`. */
  dataDir: string;
  /** Wakes the webhook delivery worker (after a resume or a replay); absent where no worker runs. */
  wakeDeliveries?: () => void;
  /** Epoch-ms clock (injected in tests). */
  now: () => number;
  /** Extra `Host` names to accept besides loopback (a tunnel). */
  allowedHosts: readonly string[];
  log: (message: string, err?: unknown) => void;
  /** How this service opens sources (file limits, backups, the Google kind's settings, the secrets): connecting a
   * spreadsheet and logging in to an account use the same. */
  sourceOptions: SourceOptions;
}
