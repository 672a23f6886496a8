import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { statusLine, type TrayModel, trayMenuTemplate } from '../../main/tray-menu.ts';

const running: TrayModel = {
  phase: 'running',
  url: 'http://127.0.0.1:8787',
  port: 8787,
  syncPaused: false,
  tunnel: 'off',
  tunnelUrl: null,
  lastSyncError: null,
  startError: null,
  launchAtLogin: false,
  launchAtLoginSupported: true,
};

function menu(model: TrayModel) {
  const calls: string[] = [];
  const items = trayMenuTemplate(model, {
    openDashboard: () => calls.push('dashboard'),
    copyApiUrl: () => calls.push('copy'),
    copyMcpConfig: () => calls.push('mcp'),
    toggleSync: () => calls.push('toggle'),
    toggleTunnel: () => calls.push('tunnel'),
    openLogs: () => calls.push('logs'),
    rotateAdminToken: () => calls.push('rotate'),
    setLaunchAtLogin: (on) => calls.push(`login ${on}`),
    quit: () => calls.push('quit'),
  });
  const byId = (id: string): MenuItemConstructorOptions => {
    const item = items.find((i) => i.id === id);
    if (!item) throw new Error(`no item ${id}`);
    return item;
  };
  // Electron calls click(menuItem, window, event); the model's handlers ignore the arguments.
  const click = (id: string) => (byId(id).click as () => void)();
  return { items, byId, click, calls };
}

describe('tray menu model', () => {
  it('shows status, port and tunnel, then the actions in order', () => {
    const { items } = menu(running);
    expect(items.map((i) => i.label ?? i.type)).toEqual([
      'Running on port 8787',
      'Tunnel: off',
      'separator',
      'Open dashboard',
      'Copy API URL',
      'Copy MCP config',
      'Pause sync',
      'Public tunnel (/api and /v1 only)',
      'separator',
      'Open logs',
      'Rotate admin token…',
      'Launch at login',
      'separator',
      'Quit SheetPort',
    ]);
    expect(items[0]?.enabled).toBe(false); // status lines are not clickable
  });

  it('each action item calls its action', () => {
    const m = menu(running);
    for (const id of [
      'open-dashboard',
      'copy-api-url',
      'copy-mcp-config',
      'toggle-sync',
      'toggle-tunnel',
      'open-logs',
      'rotate-admin-token',
      'launch-at-login',
      'quit',
    ])
      m.click(id);
    expect(m.calls).toEqual([
      'dashboard',
      'copy',
      'mcp',
      'toggle',
      'tunnel',
      'logs',
      'rotate',
      'login true',
      'quit',
    ]);
  });

  it('offers Resume when paused and says so in the status', () => {
    const { byId } = menu({ ...running, syncPaused: true });
    expect(byId('toggle-sync').label).toBe('Resume sync');
    expect(byId('status').label).toBe('Sync paused on port 8787');
  });

  it('shows the tunnel URL and the last sync error, shortened', () => {
    const { byId } = menu({
      ...running,
      tunnel: 'open',
      tunnelUrl: 'https://abc.ngrok.app',
      lastSyncError: `Cannot read /data/people.xlsx: ${'x'.repeat(200)}`,
    });
    expect(byId('tunnel').label).toBe('Tunnel: https://abc.ngrok.app');
    const error = byId('last-error').label ?? '';
    expect(error.startsWith('Last error: Cannot read /data/people.xlsx')).toBe(true);
    expect(error.length).toBeLessThanOrEqual(80);
  });

  it('the tunnel is an unchecked checkbox by default, and says when it is opening or did not open', () => {
    expect(menu(running).byId('toggle-tunnel')).toMatchObject({
      type: 'checkbox',
      checked: false,
      enabled: true,
    });
    expect(
      menu({ ...running, tunnel: 'open', tunnelUrl: 'https://abc.ngrok.app' }).byId('toggle-tunnel'),
    ).toMatchObject({
      checked: true,
      enabled: true,
    });
    const opening = menu({ ...running, tunnel: 'starting' });
    expect(opening.byId('tunnel').label).toBe('Tunnel: opening…');
    expect(opening.byId('toggle-tunnel')).toMatchObject({ checked: true, enabled: false });
    const failed = menu({ ...running, tunnel: 'failed', lastSyncError: 'No tunnel authtoken is stored' });
    expect(failed.byId('tunnel').label).toBe('Tunnel: did not open (see the last error)');
    expect(failed.byId('last-error').label).toBe('Last error: No tunnel authtoken is stored');
    expect(failed.byId('toggle-tunnel')).toMatchObject({ checked: false, enabled: true });
  });

  it('launch at login is a checkbox reflecting the setting, off where unsupported', () => {
    const on = menu({ ...running, launchAtLogin: true });
    expect(on.byId('launch-at-login')).toMatchObject({ type: 'checkbox', checked: true, enabled: true });
    on.click('launch-at-login');
    expect(on.calls).toEqual(['login false']);
    expect(menu({ ...running, launchAtLoginSupported: false }).byId('launch-at-login').enabled).toBe(false);
  });

  it('while not running, server actions are disabled but logs and Quit stay', () => {
    const failed = menu({
      ...running,
      phase: 'failed',
      url: null,
      port: null,
      startError: 'port 8787 is in use',
    });
    expect(failed.byId('status').label).toBe('Not running: port 8787 is in use');
    for (const id of [
      'open-dashboard',
      'copy-api-url',
      'copy-mcp-config',
      'toggle-sync',
      'toggle-tunnel',
      'rotate-admin-token',
    ])
      expect(failed.byId(id).enabled).toBe(false);
    for (const id of ['open-logs', 'quit']) expect(failed.byId(id).enabled).not.toBe(false);
    expect(statusLine({ ...running, phase: 'stopping' })).toMatch(/finishing deliveries/);
  });
});
