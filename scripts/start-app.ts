/**
 * `npm run app` and `npm run app:smoke`, after the compile step: prepares better-sqlite3 for the installed
 * Electron (scripts/electron-native.ts), checks Electron's binary is there, then runs `electron .` with the
 * arguments given (`--smoke`) and exits with its code. Whatever is missing is one line naming the command that
 * fixes it, and exit code 1: no download attempt and no stack trace from the electron package.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PrepareError, prepareElectronSqlite } from './electron-native.ts';

/** Electron's executable as the electron package finds it, or null when its binary was never downloaded. */
export function electronExecutable(root: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const pkg = path.join(root, 'node_modules', 'electron');
  const pathFile = path.join(pkg, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const dist = env.ELECTRON_OVERRIDE_DIST_PATH || path.join(pkg, 'dist');
  const file = path.join(dist, relative || 'electron');
  return (relative || env.ELECTRON_OVERRIDE_DIST_PATH) && existsSync(file) ? file : null;
}

export const INSTALL_ELECTRON_COMMAND = 'node node_modules/electron/install.js';

async function main(): Promise<void> {
  const root = process.cwd();
  try {
    const prepared = await prepareElectronSqlite({ root });
    if (prepared.how !== 'cached')
      console.log(`better-sqlite3 prepared for Electron ${prepared.electronVersion}`);
  } catch (err) {
    console.error(
      err instanceof PrepareError
        ? err.message
        : `SheetPort: could not prepare better-sqlite3 for Electron (${String(err)}); run \`npm run app:native\`.`,
    );
    process.exit(1);
  }
  const electron = electronExecutable(root);
  if (!electron) {
    console.error(
      `SheetPort: Electron's binary is not installed (node_modules/electron/dist); with network access run \`${INSTALL_ELECTRON_COMMAND}\`, then start again.`,
    );
    process.exit(1);
  }
  const child = spawn(electron, ['.', ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) await main();
