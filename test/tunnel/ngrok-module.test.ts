/**
 * The real tunnel provider's library is installed and loads on this platform: its native binary comes in a
 * per-platform package (`@ngrok/ngrok-<platform>`), which the lockfile must list for every OS so `npm ci` works
 * everywhere. Nothing here connects anywhere: ngrok's cloud cannot be reached from a test machine.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ngrokProvider } from '../../server/tunnel/ngrok.ts';

describe('@ngrok/ngrok', () => {
  it('loads, with forward()', async () => {
    const ngrok = await import('@ngrok/ngrok');
    expect(typeof ngrok.forward).toBe('function');
    expect(typeof ngrok.default.forward).toBe('function');
    expect(ngrokProvider.name).toBe('ngrok');
  });

  it('has every platform package of its version in the lockfile', () => {
    const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
      packages: Record<string, { version?: string; optionalDependencies?: Record<string, string> }>;
    };
    const main = lock.packages['node_modules/@ngrok/ngrok'];
    expect(main?.version).toMatch(/^1\./);
    const platforms = Object.entries(main?.optionalDependencies ?? {});
    expect(platforms.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        '@ngrok/ngrok-linux-x64-gnu',
        '@ngrok/ngrok-darwin-arm64',
        '@ngrok/ngrok-darwin-x64',
        '@ngrok/ngrok-win32-x64-msvc',
      ]),
    );
    for (const [name, version] of platforms) {
      expect({ name, version: lock.packages[`node_modules/${name}`]?.version }).toEqual({ name, version });
    }
  });
});
