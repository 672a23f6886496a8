/**
 * The embedded default: every repository (repositories/index.ts) over one SQLite database in the data dir, each
 * the storage rules (repositories/rules/) over this database's statements. The service's wiring (context.ts) and
 * the CLI open their stores here and nowhere else.
 */
import type Database from 'better-sqlite3';
import { ChangeLogRepository } from '../repositories/rules/change-log.ts';
import { ChangeRecordingRepository } from '../repositories/rules/change-recording.ts';
import { ConnectionRepository } from '../repositories/rules/connections.ts';
import { DeliveryLogRepository } from '../repositories/rules/delivery-log.ts';
import { IdempotencyRepository } from '../repositories/rules/idempotency.ts';
import { KeyRepository } from '../repositories/rules/keys.ts';
import { OutboxRepository } from '../repositories/rules/outbox.ts';
import { UsageRepository } from '../repositories/rules/usage.ts';
import { WebhookRepository } from '../repositories/rules/webhooks.ts';
import type { Store } from '../repositories/store.ts';
import { type DatabaseSecrets, secretsOf } from '../secrets/db-binding.ts';
import type { SecretsProvider } from '../secrets/provider.ts';
import { AdminTokenStore } from './admin-token.ts';
import { SqliteKeyStatements } from './api-keys.ts';
import { SqliteBaselines } from './baselines.ts';
import { SqliteChangeLogStatements } from './change-log.ts';
import { SqliteConnectionStatements } from './connections.ts';
import { type OpenDatabaseOptions, openDatabase, type SqliteDatabase } from './db.ts';
import { SqliteOutboxStatements } from './deliveries.ts';
import { SqliteDeliveryLogStatements } from './delivery-log.ts';
import { SqliteIdempotencyStatements } from './idempotency.ts';
import { sqliteReady } from './ready.ts';
import { SqliteRecordingStatements } from './recording.ts';
import { SqliteRegistry } from './registry.ts';
import { sqliteTransactional } from './transactional.ts';
import { SqliteUsageStatements } from './usage.ts';
import { SqliteWebhookStatements } from './webhooks.ts';

export interface SqliteRepositories extends Store {
  readonly kind: 'sqlite';
  /** The data dir's secrets provider (named secrets: account tokens, the tunnel's authtoken). */
  secrets: SecretsProvider;
  /** The data dir's secrets provider and data key, opened with the database. */
  databaseSecrets: DatabaseSecrets;
  /** The database itself; opaque to everything above store/. */
  db: SqliteDatabase;
  /** Closes the database; synchronous for SQLite (done before the promise is returned). */
  close(): Promise<void>;
}

export interface SqliteRepositoryOptions extends OpenDatabaseOptions {
  clock?: () => Date;
}

/** Opens (creating and migrating if needed) the data dir's database and every repository over it. */
export function openSqliteRepositories(
  dataDir: string,
  options: SqliteRepositoryOptions = {},
): SqliteRepositories {
  const { clock, ...openOptions } = options;
  return sqliteRepositoriesOver(openDatabase(dataDir, openOptions), dataDir, clock);
}

/** Every repository over a database opened already (db.ts `openDatabase`) in `dataDir`. */
export function sqliteRepositoriesOver(
  db: Database.Database,
  dataDir: string,
  clock?: () => Date,
): SqliteRepositories {
  const databaseSecrets = secretsOf(db);
  const on = <S>(statements: S) => sqliteTransactional(db, statements);
  const outbox = new SqliteOutboxStatements(db);
  const registry = new SqliteRegistry(db);
  return {
    kind: 'sqlite',
    keys: new KeyRepository(on(new SqliteKeyStatements(db, registry)), clock),
    connections: new ConnectionRepository(on(new SqliteConnectionStatements(db, registry)), clock),
    webhooks: new WebhookRepository(on(new SqliteWebhookStatements(db)), databaseSecrets.box, clock),
    deliveries: new OutboxRepository(on(outbox)),
    deliveryLog: new DeliveryLogRepository(new SqliteDeliveryLogStatements(db, outbox)),
    usage: new UsageRepository(on(new SqliteUsageStatements(db))),
    idempotency: new IdempotencyRepository(
      on(new SqliteIdempotencyStatements(db)),
      databaseSecrets.box,
      clock,
    ),
    adminTokens: new AdminTokenStore(db, dataDir),
    changeLog: new ChangeLogRepository(new SqliteChangeLogStatements(db)),
    changeRecording: new ChangeRecordingRepository(
      on(new SqliteRecordingStatements(db)),
      new SqliteBaselines(db),
    ),
    secrets: databaseSecrets.provider,
    databaseSecrets,
    db,
    ready: () => sqliteReady(db),
    async close() {
      if (db.open) db.close();
    },
  };
}
