import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HOST, DEFAULT_PORT, resolveDataDir } from '../../server/config.ts';

describe('resolveDataDir', () => {
  it('uses the OS app-data folder Electron uses for userData', () => {
    expect(resolveDataDir({ env: {}, platform: 'linux', home: '/home/ann' })).toBe(
      '/home/ann/.config/SheetPort',
    );
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: '/xdg' }, platform: 'linux', home: '/home/ann' })).toBe(
      '/xdg/SheetPort',
    );
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: '' }, platform: 'linux', home: '/home/ann' })).toBe(
      '/home/ann/.config/SheetPort',
    );
    expect(resolveDataDir({ env: {}, platform: 'darwin', home: '/Users/ann' })).toBe(
      '/Users/ann/Library/Application Support/SheetPort',
    );
    expect(
      resolveDataDir({
        env: { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' },
        platform: 'win32',
        home: 'C:\\Users\\ann',
      }),
    ).toBe('C:\\Users\\ann\\AppData\\Roaming\\SheetPort');
    expect(resolveDataDir({ env: {}, platform: 'win32', home: 'C:\\Users\\ann' })).toBe(
      'C:\\Users\\ann\\AppData\\Roaming\\SheetPort',
    );
    // Other Unixes follow the XDG rule like Linux.
    expect(resolveDataDir({ env: {}, platform: 'freebsd', home: '/home/ann' })).toBe(
      '/home/ann/.config/SheetPort',
    );
  });

  it('prefers SHEETPORT_DATA_DIR over the OS folder, and --data-dir over both', () => {
    const env = { SHEETPORT_DATA_DIR: '/srv/sheetport', XDG_CONFIG_HOME: '/xdg', APPDATA: 'C:\\AppData' };
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(resolveDataDir({ env, platform, home: '/home/ann' })).toBe('/srv/sheetport');
      expect(resolveDataDir({ flag: '/tmp/flag', env, platform, home: '/home/ann' })).toBe('/tmp/flag');
    }
    expect(resolveDataDir({ env: { SHEETPORT_DATA_DIR: '' }, platform: 'linux', home: '/h' })).toBe(
      '/h/.config/SheetPort',
    );
  });

  it('resolves a relative flag or env value against the current directory', () => {
    expect(resolveDataDir({ flag: 'data', env: {} })).toBe(path.resolve('data'));
    expect(resolveDataDir({ env: { SHEETPORT_DATA_DIR: './d' } })).toBe(path.resolve('d'));
  });

  it('defaults to the process environment', () => {
    // A process started with the variable set, as a user starts `sheetport`: this one's environment stays as it is.
    const config = new URL('../../server/config.ts', import.meta.url).href;
    const printed = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { resolveDataDir } from '${config}'; console.log(resolveDataDir());`,
      ],
      { env: { ...process.env, SHEETPORT_DATA_DIR: '/from/env' }, encoding: 'utf8' },
    );
    expect(printed.trim()).toBe('/from/env');
  });

  it('exports the listening defaults', () => {
    expect(DEFAULT_PORT).toBe(8787);
    expect(DEFAULT_HOST).toBe('127.0.0.1');
  });
});
