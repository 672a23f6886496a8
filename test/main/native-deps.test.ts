/**
 * electron-builder.yml sets `npmRebuild: false` because every native addon the app ships registers through
 * Node-API, which Electron provides as Node does: the addons npm installed for Node load in Electron unchanged.
 * This walks the production dependencies actually installed (those the packed app carries) and checks each
 * .node file; a dependency built against one Node ABI fails here, and then the rebuild must come back on (and
 * scripts/electron-native.ts rebuilds it for `npm run app`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isNodeApiAddon } from '../../scripts/electron-native.ts';

const repo = path.resolve(import.meta.dirname, '../..');

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

function packageDir(name: string, from: string): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

/** Every installed package the app's production dependencies reach (optional ones when installed). */
function productionPackages(): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (dir: string) => {
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      const child = packageDir(name, dir);
      if (!child || found.has(child)) continue;
      found.set(child, name);
      visit(child);
    }
  };
  visit(repo);
  return found;
}

function addonsIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.node') && !file.split(path.sep).includes('node_modules'))
    .map((file) => path.join(dir, file));
}

describe('native dependencies of the packed app', () => {
  it('are all Node-API addons, so neither `npm run dist` nor `npm run app` needs a rebuild for Electron', () => {
    const addons = [...productionPackages()].flatMap(([dir, name]) =>
      addonsIn(dir).map((file) => ({ name, file: path.relative(dir, file), napi: isNodeApiAddon(file) })),
    );
    // At least the three native packages docs/desktop.md lists, each for this machine's platform.
    expect(new Set(addons.map((a) => a.name.replace(/-(linux|darwin|win32).*$/, '')))).toEqual(
      new Set(['better-sqlite3', '@napi-rs/keyring', '@ngrok/ngrok']),
    );
    expect(addons.filter((a) => !a.napi)).toEqual([]);
  });
});
