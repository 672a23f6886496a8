/**
 * What can be checked of packaging without Electron's binary: electron-builder's own schema accepts the config,
 * native modules are unpacked, the icons are real PNGs of the stated sizes, and `npm run app`'s compile step
 * puts Electron's entry (package.json "main") and the CommonJS preload where main/index.ts looks for them.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(import.meta.dirname, '../..');

interface BuilderConfig {
  files: string[];
  asarUnpack: string[];
  linux: { target: string[] };
  mac: { target: string[]; hardenedRuntime: boolean };
  win: { target: string[] };
  publish: { provider: string };
}

async function builderConfig(): Promise<BuilderConfig> {
  const yaml = require('js-yaml') as { load(text: string): unknown };
  return yaml.load(await readFile(path.join(ROOT, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
}

/** Width and height from a PNG's IHDR chunk. */
async function pngSize(file: string): Promise<[number, number]> {
  const bytes = await readFile(file);
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

let out: string | null = null;
afterAll(() => (out ? rm(out, { recursive: true, force: true }) : undefined));

describe('packaging', () => {
  it('electron-builder accepts electron-builder.yml', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
      validateConfiguration(config: unknown, debug: { add(): void }): Promise<void>;
    };
    await expect(validateConfiguration(await builderConfig(), { add() {} })).resolves.toBeUndefined();
  });

  it('targets every platform, unpacks the native modules and ships what the app loads', async () => {
    const config = await builderConfig();
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac).toMatchObject({ target: ['dmg'], hardenedRuntime: true });
    expect(config.win.target).toEqual(['nsis']);
    expect(config.publish.provider).toBe('github');
    expect(config.asarUnpack).toEqual(
      expect.arrayContaining(['node_modules/better-sqlite3/**', 'node_modules/@napi-rs/keyring*/**']),
    );
    for (const entry of [
      'dist/main/**/*.js',
      'dist/main/**/*.cjs',
      'dist/server/**/*.js',
      'renderer/dist/**',
    ])
      expect(config.files).toContain(entry);
    expect(config.files).toContain('docs/openapi.json');
  });

  it('has real icons: app PNGs at each size and the macOS tray template at 1x and 2x', async () => {
    for (const size of [16, 32, 64, 128, 256, 512])
      expect(await pngSize(path.join(ROOT, 'assets', 'icons', `${size}x${size}.png`))).toEqual([size, size]);
    expect(await pngSize(path.join(ROOT, 'assets', 'icon.png'))).toEqual([512, 512]);
    expect(await pngSize(path.join(ROOT, 'assets', 'trayTemplate.png'))).toEqual([16, 16]);
    expect(await pngSize(path.join(ROOT, 'assets', 'trayTemplate@2x.png'))).toEqual([32, 32]);
  });

  it('the compile step of `npm run app` produces package.json "main" and the preload', async () => {
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.main).toBe('dist/main/index.js');
    out = await mkdtemp(path.join(os.tmpdir(), 'sheetport-main-build-'));
    const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
    await promisify(execFile)(tsc, ['-p', 'tsconfig.main.json', '--outDir', out], { cwd: ROOT });
    const entry = path.join(out, pkg.main.replace(/^dist\//, ''));
    expect(existsSync(entry)).toBe(true);
    const main = await readFile(entry, 'utf8');
    expect(main).toContain("from '../server/index.js'"); // the server through its public entry, compiled
    expect(main).toContain("'preload.cjs'");
    const preload = await readFile(path.join(out, 'main', 'preload.cjs'), 'utf8');
    expect(preload).toContain("require('electron')"); // sandboxed preloads are CommonJS scripts
    expect(preload).not.toMatch(/^import /m);
  }, 60_000);
});
