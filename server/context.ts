import type Database from 'better-sqlite3';
import type { AppDeps } from './http/deps.ts';
import { Replica } from './replica/replica.ts';
import type { Source } from './sources/source.ts';
import { createWorkbookSource } from './sources/workbook/index.ts';
import { ApiKeyStore } from './store/api-keys.ts';
import type { ConnectionRecord } from './store/connections.ts';
import { ConnectionStore } from './store/connections.ts';
import { openDatabase } from './store/db.ts';
import { IdempotencyStore } from './store/idempotency.ts';

export interface ServiceContext extends AppDeps {
  db: Database.Database;
  close(): Promise<void>;
}

export interface ContextOptions {
  dataDir: string;
  allowedHosts?: readonly string[];
  clock?: () => Date;
  log?: (message: string, err?: unknown) => void;
}

/** Opens the data dir and wires the stores, sources and replica. One code path for CLI, tests and Electron. */
export function createServiceContext(options: ContextOptions): ServiceContext {
  const clock = options.clock ?? (() => new Date());
  const db = openDatabase(options.dataDir);
  const openSource = (connection: ConnectionRecord): Source => createWorkbookSource(connection.location);
  const replica = new Replica(openSource);
  return {
    db,
    connections: new ConnectionStore(db),
    keys: new ApiKeyStore(db, clock),
    idempotency: new IdempotencyStore(db, clock),
    replica,
    allowedHosts: options.allowedHosts ?? [],
    log: options.log ?? ((message, err) => console.error(message, err)),
    async close() {
      await replica.close();
      db.close();
    },
  };
}
