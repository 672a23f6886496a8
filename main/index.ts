/**
 * The SheetPort tray app's main process (Electron glue; the logic lives in the small modules beside it, which
 * are unit-tested). One instance per user: a second launch shows the first one's dashboard. The server runs in
 * this process through server/index.ts, the same entry `sheetport serve` uses; workbook parsing already happens
 * in worker threads there, so the tray stays responsive while a large file loads.
 */
// First: evaluated before the modules below load (ES modules evaluate in import order).
import '../server/small-footprint-first.ts';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  app,
  type BrowserWindow,
  clipboard,
  dialog,
  ipcMain,
  Menu,
  nativeImage,
  shell,
  Tray,
} from 'electron';
import log from 'electron-log/main';
import {
  createDemoSpreadsheet,
  DEFAULT_HOST,
  DEFAULT_PORT,
  type RunningServer,
  readConfig,
  resolveDataDir,
  startServer,
  WORKBOOK_EXTENSIONS,
} from '../server/index.ts';
import { configureAppLog, logsDir } from './app-log.ts';
import { registerIpcHandlers } from './ipc.ts';
import { Lifecycle } from './lifecycle.ts';
import { loginItemsFor } from './login-item.ts';
import { copyMcpConfig } from './mcp-config.ts';
import { runSmoke, SMOKE_EXIT_MS, SMOKE_FLAG, SMOKE_TIMEOUT_LINE } from './smoke.ts';
import { chooseSqliteBinding } from './sqlite-binding.ts';
import { type TrayModel, trayMenuTemplate } from './tray-menu.ts';
import { checkForUpdatesOnStart } from './updates.ts';
import { createDashboardWindow, signInDashboardWindow } from './windows.ts';

// `npm run app:smoke`: the first start checked end to end in a throwaway data dir, beside a running app.
const smoke = process.argv.includes(SMOKE_FLAG);
// The environment's settings (server/config.ts), read once and handed to the server.
const config = readConfig();
// The same folder the CLI uses (SHEETPORT_DATA_DIR, else the per-user app-data folder, which is Electron's
// userData for an app named SheetPort), so `sheetport` commands and the app share connections and keys.
const dataDir = smoke ? mkdtempSync(path.join(os.tmpdir(), 'sheetport-smoke-')) : resolveDataDir();
// Chromium's own files (cache, cookies) go in a subfolder, apart from the service's data.
app.setPath('sessionData', path.join(smoke ? dataDir : app.getPath('userData'), 'Chromium'));

// Electron cannot load Node's build of better-sqlite3 unless it is N-API; from a checkout the app uses the one
// `npm run app:native` prepared, and says so in one line when it is not there (main/sqlite-binding.ts).
const sqlite = chooseSqliteBinding({
  versions: process.versions,
  appRoot: app.getAppPath(),
  packaged: app.isPackaged,
});

/** What the app holds for its life, shared by the setups below (the fields are set up in this order).
 * Declared before the start below runs: a class, unlike a function, is not usable before its declaration. */
class TrayApp {
  readonly logError = (message: string, err?: unknown) => log.error(message, err ?? '');
  readonly assets = path.join(app.getAppPath(), 'assets');
  readonly preload = path.join(import.meta.dirname, 'preload.cjs');
  readonly trustedIds = new Set<number>();
  readonly loginItems = loginItemsFor(process.platform, app, process.env, os.homedir(), process.execPath);
  server: RunningServer | null = null;
  tray: Tray | null = null; // held here for the app's life, so it is never garbage-collected
  win: BrowserWindow | null = null;
  quitting = false;
  drained = false;
  readonly lifecycle: Lifecycle = setupLifecycle(this);
}

if (sqlite.kind === 'missing') {
  process.stderr.write(`${sqlite.message}\n`);
  app.exit(1);
} else if (!smoke && !app.requestSingleInstanceLock()) {
  app.quit();
} else {
  if (smoke)
    setTimeout(() => {
      process.stdout.write(`${SMOKE_TIMEOUT_LINE}\n`);
      app.exit(1);
    }, SMOKE_EXIT_MS);
  runApp();
}

/** The app: the log first, then one setup per concern, in the order they must happen. */
function runApp(): void {
  mkdirSync(logsDir(dataDir), { recursive: true });
  configureAppLog(log, dataDir);
  const ta = new TrayApp();
  setupIpc(ta);
  setupQuit(ta);
  setupTrayWhenReady(ta);
}

/** The server's start, stop and state; each change of state redraws the tray menu. */
function setupLifecycle(ta: TrayApp): Lifecycle {
  const lifecycle = new Lifecycle({
    start: async () => {
      ta.server = await startServer({
        dataDir,
        config,
        port: smoke ? 0 : (config.port ?? DEFAULT_PORT),
        host: DEFAULT_HOST,
        ...(sqlite.kind === 'electron' ? { sqliteBinding: sqlite.path } : {}),
        log: (message, err) => {
          ta.logError(message, err);
          lifecycle.noteError(message, err);
        },
      });
      return ta.server;
    },
    onChange: () => refreshTray(ta),
  });
  return lifecycle;
}

function showDashboard(ta: TrayApp): void {
  if (!ta.server) return;
  if (!ta.win || ta.win.isDestroyed()) {
    ta.win = createDashboardWindow({
      port: ta.server.port,
      signInCode: () => ta.lifecycle.signInCode() ?? '',
      preload: ta.preload,
      icon: path.join(ta.assets, 'icons', '256x256.png'),
      trustedIds: ta.trustedIds,
      quitting: () => ta.quitting,
    });
  }
  if (ta.win.isMinimized()) ta.win.restore();
  ta.win.show();
  ta.win.focus();
}

function trayModel(ta: TrayApp): TrayModel {
  return {
    ...ta.lifecycle.state,
    // A login entry for `electron .` would start Electron without the app, so only a packaged app offers it.
    launchAtLoginSupported: app.isPackaged && ta.loginItems.supported,
    launchAtLogin: app.isPackaged && ta.loginItems.isEnabled(),
  };
}

/** After the user confirms: a new admin token, and the dashboard window signed in again with a fresh code. */
async function rotateAdminToken(ta: TrayApp): Promise<void> {
  const choice = await dialog.showMessageBox({
    type: 'warning',
    buttons: ['Rotate', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    title: 'Rotate admin token',
    message: 'Replace the admin token?',
    detail:
      'Scripts that use the current token and dashboards open in a browser stop working; `sheetport admin-token` prints the new one.',
  });
  const { lifecycle, win } = ta;
  if (choice.response !== 0 || !lifecycle.rotateAdminToken()) return;
  const port = lifecycle.state.port;
  if (win && !win.isDestroyed() && port !== null) {
    signInDashboardWindow(win, port, () => lifecycle.signInCode() ?? '');
  }
}

function refreshTray(ta: TrayApp): void {
  if (!ta.tray) return;
  const { lifecycle, logError } = ta;
  const menu = trayMenuTemplate(trayModel(ta), {
    openDashboard: () => showDashboard(ta),
    copyApiUrl: () => {
      if (lifecycle.state.url) clipboard.writeText(lifecycle.state.url);
    },
    copyMcpConfig: () => {
      if (!ta.server) return;
      const server = { url: ta.server.url, adminToken: ta.server.adminToken };
      void copyMcpConfig(server, { fetch, writeText: (text) => clipboard.writeText(text) }).catch((err) =>
        logError('Copy MCP config failed', err),
      );
    },
    toggleSync: () => void lifecycle.toggleSync().catch((err) => logError('Pause/resume failed', err)),
    toggleTunnel: () => void lifecycle.toggleTunnel().catch((err) => logError('Tunnel switch failed', err)),
    openLogs: () => void shell.openPath(logsDir(dataDir)),
    rotateAdminToken: () => void rotateAdminToken(ta),
    setLaunchAtLogin: (on) => {
      ta.loginItems.setEnabled(on);
      refreshTray(ta);
    },
    quit: () => app.quit(),
  });
  ta.tray.setToolTip(`SheetPort: ${menu[0]?.label ?? ''}`);
  // Linux shows a changed menu only when it is set again.
  ta.tray.setContextMenu(Menu.buildFromTemplate(menu));
}

/** The smoke check's one line on stdout, then the server stopped, the throwaway data dir removed, exit 0 or 1. */
async function finishSmoke(ta: TrayApp, trayCreated: true | string): Promise<void> {
  const { server, lifecycle } = ta;
  const result = await runSmoke({
    server: server ? { url: server.url, adminToken: server.adminToken } : null,
    startError: lifecycle.state.startError,
    createDemo: async () => (await createDemoSpreadsheet(dataDir)).location,
    tray: trayCreated,
    fetch,
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
  process.stdout.write(`${result.line}\n`);
  try {
    await lifecycle.stop();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 3 });
  } catch (err) {
    // A temporary folder left behind (a file still locked on Windows) does not change the verdict.
    ta.logError('Smoke check cleanup failed', err);
  }
  app.exit(result.ok ? 0 : 1);
}

/** What the dashboard's preload may ask of the main process (main/ipc.ts). */
function setupIpc(ta: TrayApp): void {
  registerIpcHandlers(ipcMain, () => (ta.server ? { ids: ta.trustedIds, port: ta.server.port } : null), {
    pickFile: async () => {
      const options = {
        title: 'Add a workbook',
        properties: ['openFile' as const],
        filters: [{ name: 'Workbooks', extensions: WORKBOOK_EXTENSIONS.map((ext) => ext.slice(1)) }],
      };
      const picked = ta.win
        ? await dialog.showOpenDialog(ta.win, options)
        : await dialog.showOpenDialog(options);
      return picked.canceled ? null : (picked.filePaths[0] ?? null);
    },
    copyText: (text) => clipboard.writeText(text),
    openExternal: (url) => shell.openExternal(url),
  });
}

/** A second launch, closed windows and Quit: the app ends only after the server has drained. */
function setupQuit(ta: TrayApp): void {
  app.on('second-instance', () => showDashboard(ta));
  // The tray keeps the app alive with no window open; Quit in the tray menu ends it.
  app.on('window-all-closed', () => {});
  app.on('before-quit', (event) => {
    ta.quitting = true;
    if (ta.drained) return;
    event.preventDefault();
    void ta.lifecycle.stop().then((outcome) => {
      log.info(
        `Server stopped (${outcome === 'drained' ? 'deliveries in flight finished' : 'deadline reached'})`,
      );
      ta.drained = true;
      app.quit();
    });
  });
}

/** Once Electron is ready: the tray icon, the server started, then the smoke check's verdict or the update check. */
function setupTrayWhenReady(ta: TrayApp): void {
  const { lifecycle, logError } = ta;
  void app.whenReady().then(async () => {
    if (process.platform === 'darwin') app.dock?.hide();
    const icon =
      process.platform === 'darwin'
        ? nativeImage.createFromPath(path.join(ta.assets, 'trayTemplate.png'))
        : nativeImage.createFromPath(path.join(ta.assets, 'icons', '32x32.png'));
    let trayCreated: true | string = true;
    try {
      ta.tray = new Tray(icon);
      // Windows users expect a click on the tray icon to open the window; elsewhere a click opens the menu.
      if (process.platform === 'win32') ta.tray.on('click', () => showDashboard(ta));
      refreshTray(ta);
    } catch (err) {
      if (!smoke) throw err;
      trayCreated = err instanceof Error ? err.message : String(err);
    }
    await lifecycle.start();
    if (lifecycle.state.phase === 'failed') logError(`Server did not start: ${lifecycle.state.startError}`);
    else log.info(`Server running at ${lifecycle.state.url} (data dir ${dataDir})`);
    if (smoke) return finishSmoke(ta, trayCreated);
    void checkForUpdatesOnStart(
      app.isPackaged,
      async () => (await import('electron-updater')).default.autoUpdater,
      logError,
    );
  });
}
