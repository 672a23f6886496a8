import type { TabChanges } from '../changes/tab-changes.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import type { McpSettings } from '../mcp-config.ts';
import type { ChangeLog } from '../repositories/change-log.ts';
import type { Connections } from '../repositories/connections.ts';
import type { Deliveries } from '../repositories/deliveries.ts';
import type { DeliveryLog } from '../repositories/delivery-log.ts';
import type { Idempotency } from '../repositories/idempotency.ts';
import type { Keys } from '../repositories/keys.ts';
import type { Usage } from '../repositories/usage.ts';
import type { Webhooks } from '../repositories/webhooks.ts';
import type { SecretsProvider } from '../secrets/provider.ts';
import type { SourceOptions } from '../sources/index.ts';
import type { Spreadsheets } from '../spreadsheets/spreadsheets.ts';
import type { AdminAccess } from './admin-access.ts';

/**
 * The names and types of what HTTP modules may be given: each mount function, guard and resolver takes
 * `Pick<AppDeps, ...>` of the fields it uses, never the whole. This is not the wiring's type: the service
 * context (context.ts) declares its own and satisfies each pick structurally, and createApp (app.ts) asks for
 * what its parts pick, together.
 */
export interface AppDeps {
  connections: Connections;
  keys: Keys;
  idempotency: Idempotency;
  /** Every connected spreadsheet: reads, writes, tab lookups and looks for outside changes go through it. */
  spreadsheets: Spreadsheets;
  usage: Usage;
  /** Per-key limits; null: the route pipeline limits nobody. */
  limiter: RateLimiter | null;
  webhooks: Webhooks;
  deliveries: Deliveries;
  /** The delivery log across webhooks (the dashboard's view). */
  deliveryLog: DeliveryLog;
  changeLog: ChangeLog;
  /** Which tabs changed, as they are recorded here or elsewhere: MCP subscriptions and the dashboard's stream. */
  tabChanges: TabChanges;
  /** The data dir's secrets provider (a kind's account logins live there). */
  secrets: SecretsProvider;
  /** Webhook URLs may point at private (LAN) addresses. */
  allowLanWebhooks: boolean;
  /** Who may call the loopback-only `/admin` API: the admin token, sign-in codes and dashboard sessions. */
  adminAccess: AdminAccess;
  /** The data dir: the admin API reads the request log in `<data dir>/logs/`. */
  dataDir: string;
  /** How the MCP endpoint sizes its answers (mcp-config.ts). */
  mcp: McpSettings;
  /** Wakes the webhook delivery worker (after a resume or a replay); absent where no worker runs. */
  wakeDeliveries?: () => void;
  /** `/readyz` answers 200 once this resolves (the store answers and is migrated), else 503 saying why not. */
  ready: () => Promise<void>;
  /** Epoch-ms clock (injected in tests). */
  now: () => number;
  /** Extra `Host` names to accept besides loopback (a tunnel). */
  allowedHosts: readonly string[];
  log: (message: string, err?: unknown) => void;
  /** How this service opens sources (file limits, backups, the Google kind's settings, the secrets): connecting a
   * spreadsheet and logging in to an account use the same. */
  sourceOptions: SourceOptions;
}
