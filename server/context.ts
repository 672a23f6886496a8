import type Database from 'better-sqlite3';
import type { AppDeps } from './http/deps.ts';
import { RateLimiter } from './limits/rate-limiter.ts';
import { Replica } from './replica/replica.ts';
import type { Source } from './sources/source.ts';
import { createWorkbookSource } from './sources/workbook/index.ts';
import { loadOrCreateAdminToken } from './store/admin-token.ts';
import { ApiKeyStore } from './store/api-keys.ts';
import type { ConnectionRecord } from './store/connections.ts';
import { ConnectionStore } from './store/connections.ts';
import { openDatabase } from './store/db.ts';
import { IdempotencyStore } from './store/idempotency.ts';
import { UsageStore } from './store/usage.ts';

export interface ServiceContext extends AppDeps {
  db: Database.Database;
  close(): Promise<void>;
}

export interface ContextOptions {
  dataDir: string;
  allowedHosts?: readonly string[];
  clock?: () => Date;
  log?: (message: string, err?: unknown) => void;
  /** Default true. */
  rateLimits?: boolean;
}

/** Usage counts reach SQLite this often: a crash loses at most this much of the daily counts. */
const USAGE_FLUSH_MS = 1000;

/** Opens the data dir and wires the stores, sources and replica. One code path for CLI, tests and Electron. */
export function createServiceContext(options: ContextOptions): ServiceContext {
  const clock = options.clock ?? (() => new Date());
  const db = openDatabase(options.dataDir);
  const openSource = (connection: ConnectionRecord): Source => createWorkbookSource(connection.location);
  const replica = new Replica(openSource);
  const now = () => clock().getTime();
  const usage = new UsageStore(db);
  const flushTimer = setInterval(() => usage.flush(), USAGE_FLUSH_MS);
  flushTimer.unref();
  return {
    db,
    connections: new ConnectionStore(db),
    keys: new ApiKeyStore(db, clock),
    idempotency: new IdempotencyStore(db, clock),
    replica,
    usage,
    limiter: options.rateLimits === false ? null : new RateLimiter(usage, now),
    now,
    adminToken: loadOrCreateAdminToken(options.dataDir),
    allowedHosts: options.allowedHosts ?? [],
    log: options.log ?? ((message, err) => console.error(message, err)),
    async close() {
      clearInterval(flushTimer);
      usage.flush();
      await replica.close();
      db.close();
    },
  };
}
