import type { Server } from 'node:http';
import { readConfig, type SheetPortConfig, STOP_DEADLINE_MS } from './config.ts';

// What an embedder (the desktop app) needs to choose the same data dir and address as the CLI.
export { DEFAULT_HOST, DEFAULT_PORT, readConfig, resolveDataDir } from './config.ts';
export { redactSecrets } from './lib/redact-secrets.ts';
// The file types a local workbook may have (the desktop app's file picker offers them).
export { WORKBOOK_EXTENSIONS } from './lib/workbook-file-types.ts';
// The demo workbook `npm start` connects; the desktop app's smoke check (`--smoke`) reads it through the API.
export { createDemoSpreadsheet } from './sources/index.ts';

import { openServiceContext, type ServiceContext } from './context.ts';
import { throttledReport } from './lib/retry-streak.ts';
import { baseUrl, closeServer, listen } from './listen.ts';
import { openRequestLog, type RequestLog, type RequestLogOptions } from './logs/request-log.ts';
import { openServerLog } from './logs/server-log.ts';
import { SECRET_NAMES } from './secrets/provider.ts';
import { removeServerInfo, writeServerInfo } from './server-info.ts';
import { type SourceOptions, stopSourceWork } from './sources/index.ts';
import { ngrokProvider } from './tunnel/ngrok.ts';
import type { TunnelProvider, TunnelStatus } from './tunnel/provider.ts';
import { TunnelSwitch } from './tunnel/switch.ts';

export type { TunnelProvider, TunnelStatus } from './tunnel/provider.ts';

/**
 * The public entry of the service: start and stop a whole SheetPort server from a config object. The CLI
 * (`serve`, `demo`) and the desktop app's main process use this and nothing deeper.
 */
export interface ServerConfig {
  dataDir: string;
  /** What the environment configures (config.ts); default: `readConfig()` of this process. */
  config?: SheetPortConfig;
  port: number;
  host: string;
  allowedHosts?: readonly string[];
  rateLimits?: boolean;
  allowLanWebhooks?: boolean;
  /** Finished webhook deliveries are kept this many days (default 30). */
  deliveryLogDays?: number;
  log?: (message: string, err?: unknown) => void;
  /** The request log in `<data dir>/logs/` (on by default; `false` turns it off). */
  requestLog?: RequestLogOptions | false;
  /**
   * Open the public tunnel at start (`serve --tunnel`; off by default). It serves `/api` and `/v1` only; a missing
   * authtoken or a failed start is logged and leaves the local server serving.
   */
  tunnel?: boolean;
  /** Who makes the public URL: ngrok by default (loaded only when a tunnel opens); tests pass a fake. */
  tunnelProvider?: TunnelProvider;
  /**
   * The path of better-sqlite3's compiled addon when the host is not Node (the tray app passes its Electron
   * build, see main/sqlite-binding.ts); omitted, better-sqlite3 loads Node's own.
   */
  sqliteBinding?: string;
  /** Hears how far each local file's read has come, 0 to 1 (`serve` prints it while a large file is read). */
  onReadProgress?: SourceOptions['onReadProgress'];
}

export interface RunningServer {
  url: string;
  port: number;
  /** The local admin token as it is now (scripts' bearer for `/admin`; never put in a URL). */
  readonly adminToken: string;
  /** A fresh one-use sign-in code for the dashboard (`/ui/#code=...`), good for a minute. */
  signInCode(): string;
  /** A new admin token: the old one, every dashboard session and every unused sign-in code stop working. */
  rotateAdminToken(): void;
  /** The wired service and its HTTP server, for tests and the stop deadline; embedders use the members above. */
  context: ServiceContext;
  server: Server;
  /** The tunnel-only listener (127.0.0.1, a free port) while the tunnel is open, else null. */
  readonly tunnelServer: Server | null;
  /** The public tunnel's URL while it is open, else null. */
  readonly tunnelUrl: string | null;
  /** Open the public tunnel; resolves with the outcome (a failure is in it and logged, never thrown). */
  openTunnel(): Promise<TunnelStatus>;
  closeTunnel(): Promise<void>;
  /** Pause change detection and webhook delivery (deliveries are held, never dropped); the API keeps serving. */
  pauseSync(): Promise<void>;
  resumeSync(): void;
  status(): ServerStatus;
  stop(): Promise<void>;
}

/** What the tray shows about a running server. */
export interface ServerStatus {
  url: string;
  port: number;
  syncPaused: boolean;
  tunnel: TunnelStatus;
}

/** The whole service on one port: what `sheetport serve`, `npm start` and the tray app all run. */
export async function startServer(options: ServerConfig): Promise<RunningServer> {
  // Without a logger of the embedder's, the service's own messages go to <data dir>/logs/ (and stderr).
  const config = options.config ?? readConfig();
  const serverLog = options.log ? null : await openServerLog(options.dataDir, config.logs);
  const log = options.log ?? serverLog?.log;
  const context = await openServiceContext({
    dataDir: options.dataDir,
    config,
    allowedHosts: options.allowedHosts ?? [],
    rateLimits: options.rateLimits !== false,
    allowLanWebhooks: options.allowLanWebhooks === true,
    ...(options.deliveryLogDays !== undefined ? { deliveryLogDays: options.deliveryLogDays } : {}),
    ...(options.sqliteBinding ? { sqliteBinding: options.sqliteBinding } : {}),
    ...(options.onReadProgress ? { onReadProgress: options.onReadProgress } : {}),
    ...(log ? { log } : {}),
  });
  let requestLog: RequestLog | null = null;
  try {
    // The connected files' first reads are asked for before this thread loads the HTTP side (Express and the
    // routes, about 0.15 s): their first file operations run on the thread pool meanwhile, but their bytes reach
    // the parse thread only once this thread is free again (docs/performance.md, "A start that loads less first").
    context.startBackground();
    const { createApp } = await import('./app.ts');
    if (options.requestLog !== false)
      requestLog = await openRequestLog(options.dataDir, {
        // A full disk fails every line: said once a minute, never thrown (the request is answered anyway).
        onError: throttledReport('Writing the request log', context.log),
        ...config.logs,
        ...options.requestLog,
      });
    // The tunnel reaches a second app, `/api` and `/v1` only, on its own listener that opens only with the
    // tunnel (tunnel/switch.ts); the authtoken is read from the secrets provider at each open.
    const tunnelApp = createApp(context, {
      requestLog,
      surface: 'tunnel',
      tunnelHosts: () => tunnelSwitch.hosts(),
    });
    const tunnelSwitch = new TunnelSwitch({
      app: tunnelApp.app,
      provider: options.tunnelProvider ?? ngrokProvider,
      authtoken: () => context.secrets.get(SECRET_NAMES.tunnelAuthtoken),
      log: context.log,
    });
    const { app, closeStreams } = createApp(context, {
      requestLog,
      tunnelStatus: () => tunnelSwitch.status(),
    });
    const { server, port } = await listen(app, options.port, options.host);
    const url = baseUrl(options.host, port);
    // Where `sheetport dashboard` finds the running server (removed again at stop).
    await writeServerInfo(options.dataDir, { url, port, pid: process.pid });
    if (options.tunnel === true) await tunnelSwitch.open();
    let stopping: Promise<void> | null = null;
    return {
      url,
      port,
      get adminToken() {
        return context.adminToken;
      },
      signInCode: () => context.adminAccess.issueCode().code,
      rotateAdminToken: () => context.adminAccess.rotate(),
      context,
      server,
      get tunnelServer() {
        return tunnelSwitch.server;
      },
      get tunnelUrl() {
        return tunnelSwitch.status().url;
      },
      openTunnel: () => tunnelSwitch.open(),
      closeTunnel: () => tunnelSwitch.close(),
      pauseSync: () => context.pauseSync(),
      resumeSync: () => context.resumeSync(),
      status: () => ({ url, port, syncPaused: context.syncPaused, tunnel: tunnelSwitch.status() }),
      stop() {
        closeStreams();
        tunnelApp.closeStreams();
        // The public URL and the tunnel-only listener close alongside the loopback listener.
        stopping ??= Promise.all([tunnelSwitch.close(), closeServer(server)])
          .then(() => removeServerInfo(options.dataDir, process.pid))
          .then(() => context.close())
          .finally(() => Promise.all([requestLog?.close(), serverLog?.close()]));
        return stopping;
      },
    };
  } catch (err) {
    await context.close();
    await requestLog?.close();
    await serverLog?.close();
    throw err;
  }
}

/**
 * Stop on Ctrl-C or a service manager's TERM: in-flight requests and writes get up to `deadlineMs` to finish
 * and the database closes; whatever is still running then (a slow client, a long parse) is cut off, so the
 * process always ends within the deadline. A second signal cuts off at once.
 */
export function stopOnSignals(
  service: RunningServer,
  onStopped: () => void,
  deadlineMs: number = STOP_DEADLINE_MS,
): void {
  let stopping = false;
  const stop = () => {
    if (stopping) {
      forceStop(service);
      onStopped();
      return;
    }
    stopping = true;
    const deadline = setTimeout(() => {
      forceStop(service);
      onStopped();
    }, deadlineMs);
    deadline.unref();
    service.stop().then(onStopped, onStopped);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** The last resort of a stop: drop every connection, save the day's usage counts and close the database. */
function forceStop(service: RunningServer): void {
  const attempt = (step: () => void) => {
    try {
      step();
    } catch {
      // Best effort: the process exits next whatever happens here.
    }
  };
  attempt(() => service.server.closeAllConnections());
  attempt(() => service.tunnelServer?.closeAllConnections());
  // A parse of a large file would hold the exit until it ends; its worker (and heap) goes now.
  attempt(() => stopSourceWork());
  // SQLite's flush and close are done before their promises settle; the process exits next, so neither is awaited.
  attempt(() => void service.context.usage.flush().catch(() => {}));
  attempt(() => void service.context.store.close().catch(() => {}));
}

/**
 * A stray rejected promise must not take the service down with every connection on it (Node's default); it is
 * logged instead. Installed by the CLI entry points only, never by tests or embedders.
 */
export function logStrayErrors(log: (message: string, err?: unknown) => void = console.error): void {
  process.on('unhandledRejection', (err) => log('Unhandled rejection (the service keeps running):', err));
}
