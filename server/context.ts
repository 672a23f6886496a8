import { ChangeRecorder } from './changes/recorder.ts';
import { TabChanges } from './changes/tab-changes.ts';
import {
  type BackupPolicy,
  backupPolicyFor,
  type FileLimits,
  fileLimitsWith,
  readConfig,
  type SheetPortConfig,
} from './config.ts';
import { AdminAccess } from './http/admin-access.ts';
import { RetryStreak } from './lib/retry-streak.ts';
import { RateLimiter } from './limits/rate-limiter.ts';
import { sharedCallsOf } from './limits/shared-calls.ts';
import type { McpSettings } from './mcp-config.ts';
import type { ConnectionRecord, Connections } from './repositories/connections.ts';
import type { Deliveries } from './repositories/deliveries.ts';
import type { Store } from './repositories/store.ts';
import type { Usage } from './repositories/usage.ts';
import type { Webhooks } from './repositories/webhooks.ts';
import { openSource, type SourceOptions, sourceSettings } from './sources/index.ts';
import { keptReadsPolicyFor } from './sources/kept-reads.ts';
import type { Source } from './sources/source.ts';
import { ConnectionFollower } from './spreadsheets/follow-connections.ts';
import { InProcessOwnership, type Ownership } from './spreadsheets/ownership.ts';
import { Spreadsheets } from './spreadsheets/spreadsheets.ts';
import type { SqliteDatabase } from './store/db.ts';
import { openSqliteRepositories } from './store/sqlite-repositories.ts';
import { assertRoomToRecord } from './store/storage-room.ts';
import { DEFAULT_EVENT_RULES, type EventRules } from './webhooks/events.ts';
import { deliver } from './webhooks/sender.ts';
import { signedHeaders } from './webhooks/signer.ts';
import { DeliveryWorker } from './webhooks/worker.ts';

/** The repositories the service hands out one by one (each also in `store`). */
type HandedOut = 'connections' | 'keys' | 'idempotency' | 'usage' | 'webhooks' | 'deliveries' | 'deliveryLog';

/**
 * The service, wired once over one store: what `serve`, the tray app, the CLI and the suites hold. Its type is
 * its own: createApp (app.ts) and each HTTP module take the narrow shape of what they use (http/deps.ts names
 * the fields), which this satisfies structurally.
 */
export interface ServiceContext extends Pick<Store, HandedOut | 'changeLog' | 'secrets'> {
  /** Every repository over the service's database (SQLite, or PostgreSQL in team mode): closed last. */
  store: Store;
  /** Every connected spreadsheet: reads, writes, tab lookups and looks for outside changes go through it. */
  spreadsheets: Spreadsheets;
  /** Which tabs changed, as they are recorded here or elsewhere: MCP subscriptions and the dashboard's stream. */
  tabChanges: TabChanges;
  /** Per-key limits; null when rate limiting is off (`rateLimits: false`, `sheetport serve --no-rate-limits`). */
  limiter: RateLimiter | null;
  /** Who may call the loopback-only `/admin` API: the admin token, sign-in codes and dashboard sessions. */
  adminAccess: AdminAccess;
  /** Webhook URLs may point at private (LAN) addresses. */
  allowLanWebhooks: boolean;
  dataDir: string;
  /** How the MCP endpoint sizes its answers (the configuration's, mcp-config.ts). */
  mcp: McpSettings;
  /** Wakes the delivery worker (after a resume or a replay). */
  wakeDeliveries: () => void;
  /** Resolves when the store's database answers and its migrations are done; rejects saying why not. */
  ready: () => Promise<void>;
  /** Epoch-ms clock (the options' `clock`, injected in tests). */
  now: () => number;
  /** Extra `Host` names to accept besides loopback (a tunnel). */
  allowedHosts: readonly string[];
  log: Log;
  /** How this service opens sources (file limits, backups, the Google kind's settings, the secrets): connecting a
   * spreadsheet and logging in to an account use the same. */
  sourceOptions: SourceOptions;
  /** The admin token as it is now (a rotation changes it). */
  readonly adminToken: string;
  recorder: ChangeRecorder;
  worker: DeliveryWorker;
  follower: ConnectionFollower;
  /** Start the delivery worker and follow every connection's outside changes (the service does; one-off CLI
   * commands do not). */
  startBackground(): void;
  /** Pause sync (the tray's Pause): stop watching sources and sending webhooks; deliveries stay queued in
   * SQLite and API reads and writes go on. Resolves once attempts in flight have finished. */
  pauseSync(): Promise<void>;
  /** Watch again (each source is looked at once at once) and send what was held. */
  resumeSync(): void;
  readonly syncPaused: boolean;
  close(): Promise<void>;
}

export interface ContextOptions {
  dataDir: string;
  /** What the environment configures (config.ts); default: `readConfig()` of this process. The fields below
   * override parts of it. */
  config?: SheetPortConfig;
  /** better-sqlite3's addon for a runtime other than Node (the tray app's Electron build); default: Node's. */
  sqliteBinding?: string;
  allowedHosts?: readonly string[];
  clock?: () => Date;
  log?: (message: string, err?: unknown) => void;
  /** Default true. */
  rateLimits?: boolean;
  /** Webhook targets on private (LAN) addresses are allowed (default false). */
  allowLanWebhooks?: boolean;
  eventRules?: EventRules;
  /** Overrides for tests: the delivery attempt, claim and watcher timings. */
  webhookSend?: ConstructorParameters<typeof DeliveryWorker>[0]['send'];
  claimMs?: number;
  watchPollMs?: number;
  /** Finished webhook deliveries are kept this many days (default 30). */
  deliveryLogDays?: number;
  /** Bounds on reading workbook files, over the config's. */
  fileLimits?: Partial<FileLimits>;
  /** How many versions of a local file its writes keep in `<data dir>/backups`, over the config's (`keep: 0` turns
   * backups off). */
  backups?: Partial<Omit<BackupPolicy, 'dir'>>;
  /** Writes are refused (507) while the data dir's file system has less free than this (default: the config's;
   * 0 turns the check off). */
  minFreeBytes?: number;
  /** Who owns each spreadsheet (spreadsheets/ownership.ts); default: this process owns every one it opens. */
  ownership?: Ownership;
  /** Awaited by each local file write just before the file is replaced (SourceOptions); default: nothing. */
  beforeFileReplace?: SourceOptions['beforeFileReplace'];
  /** Hears how far each local file's read has come (SourceOptions): `serve`'s start-up lines. */
  onReadProgress?: SourceOptions['onReadProgress'];
}

/** Usage counts reach SQLite this often: a crash loses at most this much of the daily counts. */
const USAGE_FLUSH_MS = 1000;

type Log = (message: string, err?: unknown) => void;

/** What the helpers below share: the settings, the database and the service's clock and log. */
interface Wiring {
  options: ContextOptions;
  config: SheetPortConfig;
  repositories: Store;
  now: () => number;
  log: Log;
}

/** A service on the data dir's SQLite database (the SQLite database itself too, for suites that look inside). */
export interface SqliteServiceContext extends ServiceContext {
  db: SqliteDatabase;
}

/** Opens the data dir's SQLite database and wires the service on it: one machine's service, synchronously. */
export function createServiceContext(options: ContextOptions): SqliteServiceContext {
  const config = options.config ?? readConfig();
  const repositories = openSqliteRepositories(options.dataDir, {
    ...(options.clock ? { clock: options.clock } : {}),
    secretsChoice: config.secrets,
    ...(options.sqliteBinding ? { nativeBinding: options.sqliteBinding } : {}),
  });
  // Assigned, not spread: the context's getters (the admin token, whether sync is paused) must stay live.
  return Object.assign(wireServiceContext(repositories, { ...options, config }), { db: repositories.db });
}

/**
 * Opens the store the configuration names (PostgreSQL in team mode, `config.team`; else the data dir's SQLite)
 * and wires the service on it. One code path for `serve`, the tray app, the CLI and the suites.
 */
export async function openServiceContext(options: ContextOptions): Promise<ServiceContext> {
  const config = options.config ?? readConfig();
  if (!config.team) return createServiceContext({ ...options, config });
  // Loaded only in team mode: the tray app and one machine's service never load the PostgreSQL client.
  const { openPgStore } = await import('./store-pg/pg-store.ts');
  const store = await openPgStore(config.team, {
    dataDir: options.dataDir,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.log ? { log: options.log } : {}),
    secretsChoice: config.secrets,
  });
  return wireServiceContext(store, { ...options, config });
}

/** Wires the stores, sources and spreadsheets over an open store. */
function wireServiceContext(
  repositories: Store,
  options: ContextOptions & { config: SheetPortConfig },
): ServiceContext {
  const { config } = options;
  const clock = options.clock ?? (() => new Date());
  const { webhooks, deliveries, usage, adminTokens, changeLog } = repositories;
  const log = options.log ?? ((message: string, err?: unknown) => console.error(message, err));
  const now = () => clock().getTime();
  const wiring: Wiring = { options, config, repositories, now, log };
  const allowLan = options.allowLanWebhooks === true;
  // Told of every recording: this process's, another instance's (NOTIFY), another process's (data_version).
  const tabChanges = new TabChanges({ changeLog, log });
  const worker = deliveryWorkerFor(wiring, webhooks, deliveries, allowLan, tabChanges);
  const recorder = changeRecorderFor(wiring, worker, tabChanges);
  const sourceOptions = sourceOptionsFor(wiring);
  const { spreadsheets, connections, follower } = followedSpreadsheets(
    wiring,
    sourceOptions,
    recorder,
    webhooks,
  );
  // Team mode: a change another instance records makes this instance's copy of it be read again, and is told.
  const unlisten = repositories.team?.onRecorded((id, version) => {
    spreadsheets.recordedElsewhere(id, version);
    tabChanges.recorded(id);
  });
  const adminAccess = new AdminAccess({
    token: adminTokens.loadOrCreate(),
    now,
    rotate: () => adminTokens.rotate(),
  });
  const flushTimer = startUsageFlush(usage, log, now);
  const sync = syncSwitch(worker, follower, spreadsheets);
  return {
    store: repositories,
    connections,
    keys: repositories.keys,
    idempotency: repositories.idempotency,
    spreadsheets,
    usage,
    limiter: options.rateLimits === false ? null : new RateLimiter(usage, now, repositories.team?.limits),
    now,
    ready: () => repositories.ready(),
    adminAccess,
    get adminToken() {
      return adminAccess.token;
    },
    allowedHosts: options.allowedHosts ?? [],
    log,
    webhooks,
    deliveries,
    deliveryLog: repositories.deliveryLog,
    secrets: repositories.secrets,
    dataDir: options.dataDir,
    sourceOptions,
    changeLog,
    tabChanges,
    allowLanWebhooks: allowLan,
    mcp: config.mcp,
    wakeDeliveries: () => worker.wake(),
    recorder,
    worker,
    follower,
    startBackground: sync.startBackground,
    pauseSync: sync.pauseSync,
    resumeSync: sync.resumeSync,
    get syncPaused() {
      return sync.paused;
    },
    async close() {
      unlisten?.();
      tabChanges.close();
      follower.stop();
      await worker.stop();
      clearInterval(flushTimer);
      try {
        await usage.flush();
      } catch (err) {
        log('Saving usage counts at stop failed; the last counts are lost', err);
      }
      await spreadsheets.close();
      await repositories.close();
    },
  };
}

/** The worker that sends queued webhook deliveries. */
function deliveryWorkerFor(
  { options, config, now, log }: Wiring,
  webhooks: Webhooks,
  deliveries: Deliveries,
  allowLan: boolean,
  tabChanges: TabChanges,
): DeliveryWorker {
  // How long a claimed delivery is held before another start may send it again (tuning knob; see docs).
  const claimMs = options.claimMs ?? config.deliveryClaimMs;
  return new DeliveryWorker({
    deliveries,
    webhooks,
    now,
    send: options.webhookSend ?? ((attempt) => deliver({ ...attempt, allowLan })),
    sign: signedHeaders,
    ...(claimMs !== undefined ? { claimMs } : {}),
    ...(options.deliveryLogDays !== undefined ? { retentionMs: options.deliveryLogDays * 86_400_000 } : {}),
    // Its look at the database's version is how a change the CLI recorded in the shared data dir is heard.
    onOutsideCommit: () => tabChanges.recorded(null),
    log,
  });
}

/** The recorder of each change, which queues its webhook deliveries, wakes the worker and tells the tab changes. */
function changeRecorderFor(
  { options, repositories, now }: Wiring,
  worker: DeliveryWorker,
  tabChanges: TabChanges,
): ChangeRecorder {
  return new ChangeRecorder({
    recording: repositories.changeRecording,
    now,
    rules: options.eventRules ?? DEFAULT_EVENT_RULES,
    onQueued: () => worker.wake(),
    onRecorded: (spreadsheetId) => tabChanges.recorded(spreadsheetId),
  });
}

/** What every Source the service opens is given: the config's settings with the options' overrides. */
function sourceOptionsFor({ options, config, repositories, now, log }: Wiring): SourceOptions {
  return {
    ...sourceSettings(config),
    fileLimits: fileLimitsWith(config.fileLimits, options.fileLimits),
    backups: backupPolicyFor(options.dataDir, config.backups, options.backups),
    keptReads: keptReadsPolicyFor(options.dataDir, options.minFreeBytes ?? config.minFreeBytes),
    log,
    secrets: repositories.secrets,
    // Remote sources date their copies (X-Data-Age) and pace their quota by the service's clock.
    now,
    prepareWritesAhead: true,
    ...(options.watchPollMs !== undefined ? { pollMs: options.watchPollMs } : {}),
    ...(options.beforeFileReplace ? { beforeFileReplace: options.beforeFileReplace } : {}),
    ...(options.onReadProgress ? { onReadProgress: options.onReadProgress } : {}),
    ...(repositories.team ? { sharedCalls: sharedCallsOf(repositories.team.limits) } : {}),
  };
}

/** Every spreadsheet (opening sources, recording each change, owned by this process) and the follower that keeps
 * each one watched. */
function followedSpreadsheets(
  { options, config, repositories, log }: Wiring,
  sourceOptions: SourceOptions,
  recorder: ChangeRecorder,
  webhooks: Store['webhooks'],
): { spreadsheets: Spreadsheets; connections: Connections; follower: ConnectionFollower } {
  const minFree = options.minFreeBytes ?? config.minFreeBytes;
  const spreadsheets = new Spreadsheets({
    // Each spreadsheet hears its own file's read progress (for the dashboard), beside whoever the options name
    // (serve's start-up lines).
    openSource: (connection: ConnectionRecord, heard: (fraction: number) => void): Source =>
      openSource(connection, {
        ...sourceOptions,
        onReadProgress: (fraction, filePath) => {
          heard(fraction);
          sourceOptions.onReadProgress?.(fraction, filePath);
        },
      }),
    record: (spreadsheetId, before, after) => recorder.record(spreadsheetId, before, after),
    assertCanRecord: () => assertRoomToRecord(options.dataDir, minFree),
    ownership: options.ownership ?? repositories.team?.ownership ?? new InProcessOwnership(),
    log,
  });
  const { connections } = repositories;
  const follower = new ConnectionFollower(spreadsheets, () => connections.list(), {
    ...(options.watchPollMs !== undefined ? { syncMs: options.watchPollMs } : {}),
    subscribed: (spreadsheetId) => webhooks.hasAnyNow(spreadsheetId),
    log,
  });
  return { spreadsheets, connections, follower };
}

/** Flushes the usage counts every USAGE_FLUSH_MS; the timer does not keep the process alive. */
function startUsageFlush(usage: Usage, log: Log, now: () => number): NodeJS.Timeout {
  // A failed flush (a full disk) keeps its counts and is retried with backoff: it must never end the process.
  const flushing = new RetryStreak({ name: 'Saving usage counts', log, now, maxMs: 10_000 });
  const flushTimer = setInterval(() => void flushing.runAsync(() => usage.flush()), USAGE_FLUSH_MS);
  flushTimer.unref();
  return flushTimer;
}

/** The background work's switch: started once by the service, paused and resumed by the tray. */
function syncSwitch(worker: DeliveryWorker, follower: ConnectionFollower, spreadsheets: Spreadsheets) {
  let backgroundStarted = false;
  let syncPaused = false;
  const startSync = () => {
    worker.start();
    follower.start();
  };
  return {
    startBackground() {
      backgroundStarted = true;
      if (!syncPaused) startSync();
    },
    async pauseSync() {
      if (syncPaused) return;
      syncPaused = true;
      follower.stop();
      spreadsheets.unfollowAll();
      // The worker's stop keeps its queue: nothing queued is dropped, it waits in SQLite for resume.
      await worker.stop();
    },
    resumeSync() {
      if (!syncPaused) return;
      syncPaused = false;
      if (backgroundStarted) startSync();
    },
    get paused() {
      return syncPaused;
    },
  };
}
