/**
 * `npm run app` and `npm run app:smoke` after the compile step (scripts/start-app.ts), run as npm runs them, in a
 * checkout of their own: better-sqlite3 prepared for Electron, Electron's binary found, `electron .` started with
 * the arguments given and its exit code passed on. What is missing is one line naming the command, exit 1, no
 * stack trace. Electron's binary cannot be downloaded here, so "Electron" is a stand-in executable
 * (ELECTRON_OVERRIDE_DIST_PATH, the electron package's own override) that reports how it was started.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { checkouts, electronVersion, repo } from '../helpers/checkout.ts';

const { checkoutWith, remove } = checkouts('sheetport-start-app-');
afterAll(remove);

const run = promisify(execFile);
const startApp = path.join(repo, 'scripts/start-app.ts');

/** A port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function launch(root: string, env: NodeJS.ProcessEnv, args: string[] = []) {
  try {
    const out = await run(process.execPath, [startApp, ...args], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    return { code: 0, ...out };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm run app when something is missing', () => {
  it('an addon built for one Node ABI that cannot be rebuilt offline: one line, exit 1, no stack trace', async () => {
    // Stands for better-sqlite3 12 and earlier, whose addon is built against one Node ABI (it exports
    // node_register_module_v127): @electron/rebuild must download Electron's headers, here from a closed port.
    const root = checkoutWith('abi-addon', ['electron', '@electron/rebuild']);
    const pkg = path.join(root, 'node_modules', 'better-sqlite3');
    mkdirSync(path.join(pkg, 'lib'), { recursive: true });
    mkdirSync(path.join(pkg, 'build', 'Release'), { recursive: true });
    writeFileSync(
      path.join(pkg, 'package.json'),
      JSON.stringify({ name: 'better-sqlite3', version: '12.4.1' }),
    );
    writeFileSync(
      path.join(pkg, 'binding.gyp'),
      "{'targets':[{'target_name':'better_sqlite3','sources':['x.c']}]}",
    );
    writeFileSync(
      path.join(pkg, 'build', 'Release', 'better_sqlite3.node'),
      '\u007fELF node_register_module_v127',
    );
    const home = path.join(root, 'home');
    mkdirSync(home);

    const result = await launch(root, {
      HOME: home,
      ELECTRON_REBUILD_DIST_URL: `http://127.0.0.1:${await closedPort()}`,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^SheetPort: could not build better-sqlite3 12\.4\.1 for Electron \d+\.\d+\.\d+ \(Electron's headers could not be downloaded: ECONNREFUSED\); with network access run `npm run app:native`\.$/,
    );
  });

  it('no Electron binary: the addon is prepared, then one line naming the install command, exit 1', async () => {
    const root = checkoutWith('no-binary', ['better-sqlite3']);
    // The electron package without its downloaded binary, as ELECTRON_SKIP_BINARY_DOWNLOAD=1 leaves it.
    mkdirSync(path.join(root, 'node_modules', 'electron'));
    writeFileSync(
      path.join(root, 'node_modules/electron/package.json'),
      JSON.stringify({ version: electronVersion }),
    );

    const result = await launch(root, {});
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(`better-sqlite3 prepared for Electron ${electronVersion}\n`);
    expect(result.stderr).toBe(
      "SheetPort: Electron's binary is not installed (node_modules/electron/dist); with network access run `node node_modules/electron/install.js`, then start again.\n",
    );
  });
});

describe('npm run app with everything in place', () => {
  it('starts `electron .` with the arguments given (--smoke) and exits with its code', async () => {
    const root = checkoutWith('ready', ['electron', 'better-sqlite3']);
    const dist = path.join(root, 'electron-stand-in');
    mkdirSync(dist);
    writeFileSync(path.join(dist, 'electron'), '#!/bin/sh\necho "electron $* in $(pwd)"\nexit 3\n', {
      mode: 0o755,
    });

    const result = await launch(root, { ELECTRON_OVERRIDE_DIST_PATH: dist }, ['--smoke']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe(
      `better-sqlite3 prepared for Electron ${electronVersion}\nelectron . --smoke in ${root}\n`,
    );
    expect(result.stderr).toBe('');
    // A second start finds the prepared addon and says nothing about it.
    expect((await launch(root, { ELECTRON_OVERRIDE_DIST_PATH: dist }, ['--smoke'])).stdout).toBe(
      `electron . --smoke in ${root}\n`,
    );
  });
});
