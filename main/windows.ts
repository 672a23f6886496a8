/**
 * The dashboard window (Electron glue; the rules it applies are in navigation.ts and unit-tested). The window
 * is sandboxed with context isolation and no Node, loads only the dashboard at `http://127.0.0.1:<port>/ui/`,
 * sends other http(s) links to the system browser, and hides instead of closing so the tray keeps running.
 */
import { BrowserWindow, shell } from 'electron';
import { dashboardUrl, isPermissionAllowed, navigationDecision } from './navigation.ts';

export interface DashboardWindowOptions {
  port: number;
  /** A fresh one-use sign-in code from the running server, asked for each time the window signs in. */
  signInCode: () => string;
  /** Absolute path of the compiled preload (dist/main/preload.cjs). */
  preload: string;
  icon?: string;
  /** webContents ids of windows this app created: IPC answers only these (ipc-sender.ts). */
  trustedIds: Set<number>;
  /** True once the user chose Quit: then closing really closes. */
  quitting: () => boolean;
}

export function createDashboardWindow(options: DashboardWindowOptions): BrowserWindow {
  const { port } = options;
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 420,
    minHeight: 480,
    show: false,
    title: 'SheetPort',
    ...(options.icon ? { icon: options.icon } : {}),
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      preload: options.preload,
    },
  });
  const contents = win.webContents;
  const id = contents.id;
  options.trustedIds.add(id);
  win.on('closed', () => options.trustedIds.delete(id));

  const guard = (event: { preventDefault(): void }, url: string) => {
    const decision = navigationDecision(url, port);
    if (decision === 'allow') return;
    event.preventDefault();
    if (decision === 'external') void shell.openExternal(url);
  };
  contents.on('will-navigate', (event) => guard(event, event.url));
  contents.on('will-redirect', (event) => guard(event, event.url));
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // No second window ever: a dashboard link loads here, an outside link goes to the system browser.
  contents.setWindowOpenHandler(({ url }) => {
    const decision = navigationDecision(url, port);
    if (decision === 'allow') void win.loadURL(url);
    else if (decision === 'external') void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.session.setPermissionRequestHandler((wc, permission, callback) =>
    callback(isPermissionAllowed(permission, wc.getURL(), port)),
  );
  contents.session.setPermissionCheckHandler((_wc, permission, origin) =>
    isPermissionAllowed(permission, `${origin}/ui/`, port),
  );

  win.on('close', (event) => {
    if (options.quitting()) return;
    event.preventDefault();
    win.hide();
  });
  win.once('ready-to-show', () => win.show());
  signInDashboardWindow(win, port, options.signInCode);
  return win;
}

/** Loads the dashboard signed in afresh (at creation, and after a rotation of the admin token ended its session). */
export function signInDashboardWindow(win: BrowserWindow, port: number, signInCode: () => string): void {
  void win.loadURL(dashboardUrl(port, signInCode()));
}
