import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { autostartEntry, type LoginItemApi, loginItemsFor } from '../../main/login-item.ts';

let dir: string;
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Stands in for Electron's app, which cannot run here; it only records the setting. */
function fakeApp(): LoginItemApi & { openAtLogin: boolean } {
  return {
    openAtLogin: false,
    getLoginItemSettings() {
      return { openAtLogin: this.openAtLogin };
    },
    setLoginItemSettings(settings) {
      this.openAtLogin = settings.openAtLogin;
    },
  };
}

describe('launch at login', () => {
  it('on Linux writes and removes an XDG autostart entry that starts the AppImage', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-login-'));
    const env = { XDG_CONFIG_HOME: dir, APPIMAGE: '/home/me/Apps/SheetPort $1.AppImage' };
    const items = loginItemsFor('linux', fakeApp(), env, '/home/me', '/tmp/.mount_x/sheetport');
    expect(items.isEnabled()).toBe(false);
    items.setEnabled(true);
    expect(items.isEnabled()).toBe(true);
    const entry = await readFile(path.join(dir, 'autostart', 'sheetport.desktop'), 'utf8');
    expect(entry).toContain('[Desktop Entry]');
    expect(entry).toContain('Exec="/home/me/Apps/SheetPort \\$1.AppImage"');
    items.setEnabled(false);
    expect(items.isEnabled()).toBe(false);
  });

  it('on macOS and Windows goes through the login item settings', () => {
    for (const platform of ['darwin', 'win32'] as const) {
      const app = fakeApp();
      const items = loginItemsFor(platform, app, {}, '/home/me', '/Applications/SheetPort.app');
      items.setEnabled(true);
      expect(app.openAtLogin).toBe(true);
      expect(items.isEnabled()).toBe(true);
    }
  });

  it('quotes the executable as the desktop entry spec asks', () => {
    expect(autostartEntry('/opt/Sheet "Port"/run')).toContain('Exec="/opt/Sheet \\"Port\\"/run"');
  });
});
