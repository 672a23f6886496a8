/**
 * Launch at login behind one small interface. macOS and Windows have Electron's `app.setLoginItemSettings`;
 * Linux has no such API, so there it is an XDG autostart entry (`~/.config/autostart/sheetport.desktop`).
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface LoginItems {
  readonly supported: boolean;
  isEnabled(): boolean;
  setEnabled(on: boolean): void;
}

/** The part of Electron's `app` used for login items. */
export interface LoginItemApi {
  getLoginItemSettings(): { openAtLogin: boolean };
  setLoginItemSettings(settings: { openAtLogin: boolean }): void;
}

export function electronLoginItems(app: LoginItemApi): LoginItems {
  return {
    supported: true,
    isEnabled: () => app.getLoginItemSettings().openAtLogin,
    setEnabled: (on) => app.setLoginItemSettings({ openAtLogin: on }),
  };
}

/** `Exec=` quoting of the desktop entry spec: the path in double quotes, with `"`, `` ` ``, `$` and `\` escaped. */
function quoteExec(file: string): string {
  return `"${file.replace(/(["`$\\])/g, '\\$1')}"`;
}

export function autostartEntry(executable: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=SheetPort',
    'Comment=Spreadsheets as a local HTTP API',
    `Exec=${quoteExec(executable)}`,
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** `autostartDir` is `$XDG_CONFIG_HOME/autostart`; `executable` is the AppImage path when run as one. */
export function xdgLoginItems(autostartDir: string, executable: string): LoginItems {
  const file = path.join(autostartDir, 'sheetport.desktop');
  return {
    supported: true,
    isEnabled: () => existsSync(file),
    setEnabled(on) {
      if (!on) {
        rmSync(file, { force: true });
        return;
      }
      mkdirSync(autostartDir, { recursive: true });
      writeFileSync(file, autostartEntry(executable), { mode: 0o644 });
    },
  };
}

export function loginItemsFor(
  platform: NodeJS.Platform,
  app: LoginItemApi,
  env: NodeJS.ProcessEnv,
  home: string,
  execPath: string,
): LoginItems {
  if (platform === 'darwin' || platform === 'win32') return electronLoginItems(app);
  const configHome = env.XDG_CONFIG_HOME || path.join(home, '.config');
  // An AppImage runs from a temporary mount; APPIMAGE is the file itself, which is what must start at login.
  return xdgLoginItems(path.join(configHome, 'autostart'), env.APPIMAGE || execPath);
}
