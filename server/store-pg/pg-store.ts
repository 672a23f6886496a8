/**
 * Team mode's Store (repositories/store.ts) over one PostgreSQL database: opens the pool, migrates, starts the
 * instance's one LISTEN connection and builds every repository on them. The admin token stays in the instance's
 * own data dir (store-pg/admin-token.ts). context.ts and the CLI open it when SHEETPORT_DATABASE_URL is set.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { AppError, isAppError } from '../errors.ts';
import type { ChangeLog, ChangeRecording } from '../repositories/change-log.ts';
import type { Deliveries } from '../repositories/deliveries.ts';
import type { DeliveryLog } from '../repositories/delivery-log.ts';
import { ConnectionRepository } from '../repositories/rules/connections.ts';
import { IdempotencyRepository } from '../repositories/rules/idempotency.ts';
import { KeyRepository } from '../repositories/rules/keys.ts';
import { UsageRepository } from '../repositories/rules/usage.ts';
import { WebhookRepository } from '../repositories/rules/webhooks.ts';
import type { Store, TeamServices } from '../repositories/store.ts';
import type { SecretBox } from '../secrets/at-rest.ts';
import { openSecretsProvider } from '../secrets/choose.ts';
import type { TeamConfig } from '../team-config.ts';
import { LocalAdminTokens } from './admin-token.ts';
import { openChangeStores } from './change-stores.ts';
import { CHANNELS, readRecordedPayload } from './channels.ts';
import { pgConnectionStatements } from './connections.ts';
import { pgIdempotencyStatements } from './idempotency.ts';
import { pgKeyStatements } from './keys.ts';
import { PgListener } from './listener.ts';
import { migrate, schemaVersion } from './migrate.ts';
import { MIGRATIONS } from './migrations.ts';
import { PgOwnership } from './ownership.ts';
import { openPool, type Pool } from './pool.ts';
import { PgRegistry } from './registry.ts';
import { secretBoxFromKey } from './secret-key.ts';
import { PgSecrets } from './secrets.ts';
import { PgSharedLimits } from './shared-limits.ts';
import { pgTransactional } from './transactional.ts';
import { pgUsageStatements } from './usage.ts';
import { pgWebhookStatements } from './webhooks.ts';
import { WatchedSpreadsheets } from './webhooks-watched.ts';

type Log = (message: string, err?: unknown) => void;

/** What the other families of tables provide, built on the same pool and listener: the change log and its
 * recording, the outbox and its log (migration 2), and the team's services (migration 3). */
interface PgStoreParts {
  changeLog: ChangeLog;
  changeRecording: ChangeRecording;
  deliveries: Deliveries;
  deliveryLog: DeliveryLog;
  team: TeamServices;
  /** Stops the parts' timers and connections; called by close() before the pool ends. */
  close: () => Promise<void>;
}

export interface PgStoreContext {
  pool: Pool;
  listener: PgListener;
  box: SecretBox;
  clock: () => Date;
  log: Log;
}

export interface PgStoreOptions {
  /** This instance's own data dir: its admin token lives there. */
  dataDir: string;
  clock?: () => Date;
  log?: Log;
  /** A listener already started by the caller (default: one opened and closed with the store). */
  listener?: PgListener;
  /** Where a new data dir keeps its own secrets (config.ts's `secrets`); default: as the environment says. */
  secretsChoice?: string;
}

export type PgStore = Store & {
  pool: Pool;
  listener: PgListener;
  webhooks: WebhookRepository;
  secrets: PgSecrets;
  usage: UsageRepository;
  adminTokens: LocalAdminTokens;
};

export async function openPgStore(team: TeamConfig, options: PgStoreOptions): Promise<PgStore> {
  const box = secretBoxFromKey(team.secretKey);
  const clock = options.clock ?? (() => new Date());
  const log: Log = options.log ?? (() => {});
  const pool = openPool(team.databaseUrl);
  const ownListener = !options.listener;
  const listener = options.listener ?? new PgListener(team.databaseUrl, log);
  const started: { stop(): void }[] = [];
  try {
    await migrate(pool);
    if (ownListener) await listener.start();
    const context: PgStoreContext = { pool, listener, box, clock, log };

    const watched = new WatchedSpreadsheets(pool, listener, log);
    await watched.start();
    started.push(watched);
    const secrets = new PgSecrets(pool, { box, listener, clock, log });
    await secrets.start();
    started.push(secrets);
    const registry = new PgRegistry(listener, () => watched.refresh());
    const parts = teamParts(context, team);
    const localSecrets = openSecretsProvider(
      options.dataDir,
      options.secretsChoice !== undefined ? { choice: options.secretsChoice } : {},
    );

    const store: PgStore = {
      kind: 'postgres',
      pool,
      listener,
      keys: new KeyRepository(pgTransactional(pool, pgKeyStatements(registry)), clock),
      connections: new ConnectionRepository(pgTransactional(pool, pgConnectionStatements(registry)), clock),
      webhooks: new WebhookRepository(
        pgTransactional(pool, pgWebhookStatements(registry, watched)),
        box,
        clock,
      ),
      usage: new UsageRepository(pgTransactional(pool, pgUsageStatements), log),
      idempotency: new IdempotencyRepository(pgTransactional(pool, pgIdempotencyStatements), box, clock),
      adminTokens: new LocalAdminTokens(localSecrets, options.dataDir),
      secrets,
      changeLog: parts.changeLog,
      changeRecording: parts.changeRecording,
      deliveries: parts.deliveries,
      deliveryLog: parts.deliveryLog,
      team: parts.team,
      ready: async () => {
        await pool.query('SELECT 1');
        const at = await schemaVersion(pool);
        const newest = MIGRATIONS.at(-1)?.version ?? 0;
        if (at !== newest) {
          throw new Error(`The team database is at schema version ${at}; this SheetPort needs ${newest}.`);
        }
      },
      close: async () => {
        for (const part of started) part.stop();
        try {
          await secrets.flush();
        } catch (err) {
          log('A secret could not be written to the team database before closing', err);
        }
        await parts.close();
        if (ownListener) await listener.close();
        await pool.end();
      },
    };
    return store;
  } catch (err) {
    for (const part of started) part.stop();
    if (ownListener) await listener.close();
    await pool.end().catch(() => {});
    throw unreachable(err, team.databaseUrl);
  }
}

/** A failure to open the team database, saying which one (never its password) and what to check. */
function unreachable(err: unknown, databaseUrl: string): unknown {
  if (isAppError(err)) return err;
  const reason = err instanceof Error ? err.message : String(err);
  let where = 'SHEETPORT_DATABASE_URL';
  try {
    const url = new URL(databaseUrl);
    where = `${url.hostname}:${url.port || 5432}${url.pathname} (SHEETPORT_DATABASE_URL)`;
  } catch {
    // not a URL: a connection string of another form; name the variable alone
  }
  return new AppError(
    'upstream_unavailable',
    `Cannot open the team database at ${where}: ${reason}. Check that PostgreSQL runs and accepts this user.`,
  );
}

/**
 * The change log, its recording and the outbox (migration 2), and the team's services (migration 3): the lease
 * and write lock of each spreadsheet, the shared limits, and word of every change another instance records.
 */
function teamParts(context: PgStoreContext, team: TeamConfig): PgStoreParts {
  const { pool, listener, log } = context;
  const changes = openChangeStores(pool, listener);
  const id = instanceId();
  const ownership = new PgOwnership({
    pool,
    databaseUrl: team.databaseUrl,
    instanceId: id,
    ttlMs: team.leaseTtlMs,
    log,
  });
  return {
    ...changes,
    team: {
      instanceId: id,
      ownership,
      limits: new PgSharedLimits(pool, log),
      onRecorded: (heard) =>
        listener.on(CHANNELS.recorded, (payload) => {
          // null: the listening connection came back, and anything may have been recorded meanwhile.
          if (payload === null) return heard(null, null);
          const recorded = readRecordedPayload(payload);
          if (recorded) heard(recorded.spreadsheetId, recorded.version);
        }),
    },
    close: () => ownership.close(),
  };
}

/** Unique per process start: the host, the process id (which a lease row shows), and a random tag. */
function instanceId(): string {
  return `${os.hostname()}:${randomBytes(3).toString('hex')}:${process.pid}`;
}
