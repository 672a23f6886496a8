/**
 * The tray menu as a pure model: the app's state in, Electron menu templates out. The glue in index.ts calls
 * this again and re-sets the context menu whenever the state changes (Linux needs a new menu, not an edited one).
 */
import type { MenuItemConstructorOptions } from 'electron';
import type { AppState } from './lifecycle.ts';

export interface TrayModel extends AppState {
  launchAtLogin: boolean;
  /** False where the platform gives no login-item API the app can use. */
  launchAtLoginSupported: boolean;
}

export interface TrayActions {
  openDashboard(): void;
  copyApiUrl(): void;
  /** A new read_write key and the Claude Desktop config that uses it, on the clipboard. */
  copyMcpConfig(): void;
  toggleSync(): void;
  toggleTunnel(): void;
  openLogs(): void;
  /** Replace the admin token (after the user confirms): scripts using the old one and open sessions stop working. */
  rotateAdminToken(): void;
  setLaunchAtLogin(on: boolean): void;
  quit(): void;
}

/** The first line of the menu and the tray's tooltip. */
export function statusLine(model: TrayModel): string {
  switch (model.phase) {
    case 'running':
      return `${model.syncPaused ? 'Sync paused' : 'Running'} on port ${model.port}`;
    case 'starting':
      return 'Starting…';
    case 'stopping':
      return 'Stopping: finishing deliveries in flight…';
    case 'failed':
      return `Not running: ${model.startError ?? 'failed to start'}`;
    default:
      return 'Stopped';
  }
}

/** The tunnel's status line: its URL while open, else what it is doing. */
export function tunnelLine(model: TrayModel): string {
  switch (model.tunnel) {
    case 'open':
      return `Tunnel: ${model.tunnelUrl}`;
    case 'starting':
      return 'Tunnel: opening…';
    case 'failed':
      return 'Tunnel: did not open (see the last error)';
    default:
      return 'Tunnel: off';
  }
}

/** Long messages would stretch the menu across the screen. */
function shorten(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function trayMenuTemplate(model: TrayModel, actions: TrayActions): MenuItemConstructorOptions[] {
  const running = model.phase === 'running';
  const status: MenuItemConstructorOptions[] = [
    { id: 'status', label: statusLine(model), enabled: false },
    { id: 'tunnel', label: tunnelLine(model), enabled: false },
  ];
  if (model.lastSyncError)
    status.push({ id: 'last-error', label: shorten(`Last error: ${model.lastSyncError}`), enabled: false });
  return [
    ...status,
    { type: 'separator' },
    { id: 'open-dashboard', label: 'Open dashboard', enabled: running, click: () => actions.openDashboard() },
    { id: 'copy-api-url', label: 'Copy API URL', enabled: running, click: () => actions.copyApiUrl() },
    {
      id: 'copy-mcp-config',
      label: 'Copy MCP config',
      toolTip: 'A new read_write API key and the Claude Desktop config that uses it',
      enabled: running,
      click: () => actions.copyMcpConfig(),
    },
    {
      id: 'toggle-sync',
      label: model.syncPaused ? 'Resume sync' : 'Pause sync',
      enabled: running,
      click: () => actions.toggleSync(),
    },
    {
      id: 'toggle-tunnel',
      label: 'Public tunnel (/api and /v1 only)',
      type: 'checkbox',
      checked: model.tunnel === 'open' || model.tunnel === 'starting',
      enabled: running && model.tunnel !== 'starting',
      click: () => actions.toggleTunnel(),
    },
    { type: 'separator' },
    { id: 'open-logs', label: 'Open logs', click: () => actions.openLogs() },
    {
      id: 'rotate-admin-token',
      label: 'Rotate admin token…',
      enabled: running,
      click: () => actions.rotateAdminToken(),
    },
    {
      id: 'launch-at-login',
      label: 'Launch at login',
      type: 'checkbox',
      checked: model.launchAtLogin,
      enabled: model.launchAtLoginSupported,
      click: () => actions.setLaunchAtLogin(!model.launchAtLogin),
    },
    { type: 'separator' },
    { id: 'quit', label: 'Quit SheetPort', click: () => actions.quit() },
  ];
}
