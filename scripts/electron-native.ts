/**
 * `npm run app:native` (and the first step of `npm run app`): prepares better-sqlite3's native addon for the
 * installed Electron at main/sqlite-binding.ts's path, node_modules/.cache/sheetport-electron/<electron
 * version>/better_sqlite3.node, leaving node_modules/better-sqlite3 built for Node (the CLI and the tests).
 *
 * - An N-API addon (better-sqlite3 13 ships these as prebuilds) loads in any runtime with Node-API, Electron
 *   included: Node's build is copied, no network needed.
 * - An addon built against one Node ABI is rebuilt for Electron's with @electron/rebuild in a copy of the
 *   package under the cache folder; that downloads Electron's headers, so it needs network access.
 *
 * A failure is one line on stderr naming the command to run later, and exit code 1 (no stack trace).
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { electronSqliteBuildPath, PREPARE_NATIVE_COMMAND } from '../main/sqlite-binding.ts';

export interface PrepareOptions {
  /** The checkout's root (node_modules/electron and node_modules/better-sqlite3 under it). */
  root: string;
  /** Electron's headers for a rebuild (default: electronjs.org, @electron/rebuild's own default). */
  headerUrl?: string;
  /** The environment of the rebuild (HOME holds node-gyp's header cache, ~/.electron-gyp). */
  env?: NodeJS.ProcessEnv;
}

export interface Prepared {
  path: string;
  electronVersion: string;
  /** 'cached': already there for this better-sqlite3; 'n-api': Node's build copied; 'rebuilt': built for Electron. */
  how: 'cached' | 'n-api' | 'rebuilt';
}

/** A failure whose message is the whole story, printed as one line. */
export class PrepareError extends Error {}

interface Stamp {
  betterSqlite3: string;
  how: 'n-api' | 'rebuilt';
}

export async function prepareElectronSqlite(options: PrepareOptions): Promise<Prepared> {
  const electronVersion = packageVersion(options.root, 'electron');
  const sqliteVersion = packageVersion(options.root, 'better-sqlite3');
  const target = electronSqliteBuildPath(options.root, electronVersion);
  const stampFile = path.join(path.dirname(target), 'build.json');
  if (existsSync(target) && readStamp(stampFile)?.betterSqlite3 === sqliteVersion)
    return { path: target, electronVersion, how: 'cached' };

  mkdirSync(path.dirname(target), { recursive: true });
  const nodeBuild = nodeAddonOf(path.join(options.root, 'node_modules', 'better-sqlite3'));
  let how: Stamp['how'];
  if (nodeBuild && isNodeApiAddon(nodeBuild)) {
    placeAtomically(nodeBuild, target);
    how = 'n-api';
  } else {
    placeAtomically(await rebuildForElectron(options, electronVersion, sqliteVersion), target);
    how = 'rebuilt';
  }
  writeFileSync(stampFile, `${JSON.stringify({ betterSqlite3: sqliteVersion, how } satisfies Stamp)}\n`);
  return { path: target, electronVersion, how };
}

/**
 * True when the addon registers through Node-API (it exports `napi_register_module_v1`, found in the export
 * names of an ELF, Mach-O or PE file alike); an addon for one Node ABI exports `node_register_module_v<ABI>`.
 */
export function isNodeApiAddon(file: string): boolean {
  const bytes = readFileSync(file);
  return bytes.includes('napi_register_module_v1') && !bytes.includes('node_register_module_v');
}

function packageVersion(root: string, name: string): string {
  const file = path.join(root, 'node_modules', name, 'package.json');
  if (!existsSync(file))
    throw new PrepareError(`SheetPort: ${name} is not installed in ${root}; run \`npm install\` first.`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function readStamp(file: string): Stamp | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Stamp;
  } catch {
    return null;
  }
}

/** The addon better-sqlite3 loads under Node: a build of its own (build/Release), else its prebuild for this OS. */
function nodeAddonOf(packageDir: string): string | null {
  for (const kind of ['Debug', 'Release']) {
    const built = path.join(packageDir, 'build', kind, 'better_sqlite3.node');
    if (existsSync(built)) return built;
  }
  const bindingJs = path.join(packageDir, 'lib', 'binding.js');
  if (!existsSync(bindingJs)) return null;
  const binding = createRequire(bindingJs)(bindingJs) as { getPrebuildPath?: () => string | null };
  return binding.getPrebuildPath?.() ?? null;
}

/** Copy, then rename: an interrupted copy never leaves a half-written addon where the app looks. */
function placeAtomically(from: string, to: string): void {
  const partial = `${to}.partial`;
  copyFileSync(from, partial);
  renameSync(partial, to);
}

/** @electron/rebuild in a copy of the package, so node_modules/better-sqlite3 keeps Node's build. */
async function rebuildForElectron(
  options: PrepareOptions,
  electronVersion: string,
  sqliteVersion: string,
): Promise<string> {
  const workDir = path.join(path.dirname(electronSqliteBuildPath(options.root, electronVersion)), 'rebuild');
  rmSync(workDir, { recursive: true, force: true });
  const modules = path.join(workDir, 'node_modules');
  const sqliteCopy = path.join(modules, 'better-sqlite3');
  cpSync(path.join(options.root, 'node_modules', 'better-sqlite3'), sqliteCopy, {
    recursive: true,
    filter: (file) => !file.includes(`${path.sep}build${path.sep}`),
  });
  // What its build needs besides itself (node-addon-api's headers, or an older version's helpers).
  const deps =
    (JSON.parse(readFileSync(path.join(sqliteCopy, 'package.json'), 'utf8')) as { dependencies?: object })
      .dependencies ?? {};
  for (const dep of Object.keys(deps)) {
    const from = path.join(options.root, 'node_modules', dep);
    if (existsSync(from)) cpSync(from, path.join(modules, dep), { recursive: true });
  }
  writeFileSync(
    path.join(workDir, 'package.json'),
    JSON.stringify({
      name: 'sheetport-electron-native',
      private: true,
      dependencies: { 'better-sqlite3': sqliteVersion },
    }),
  );
  const cli = path.join(options.root, 'node_modules', '@electron', 'rebuild', 'lib', 'cli.js');
  const args = [
    cli,
    '--version',
    electronVersion,
    '--module-dir',
    workDir,
    '--only',
    'better-sqlite3',
    '--force',
  ];
  if (options.headerUrl) args.push('--dist-url', options.headerUrl);
  try {
    // Its output (node-gyp's, pages of it on failure) is kept out of the terminal; only the reason is shown.
    await promisify(execFile)(process.execPath, args, {
      cwd: workDir,
      env: options.env ?? process.env,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    throw new PrepareError(
      `SheetPort: could not build better-sqlite3 ${sqliteVersion} for Electron ${electronVersion} (${reasonOf(err)}); with network access run \`${PREPARE_NATIVE_COMMAND}\`.`,
    );
  }
  const built = path.join(sqliteCopy, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(built))
    throw new PrepareError(
      `SheetPort: @electron/rebuild produced no better-sqlite3 addon for Electron ${electronVersion}; run \`${PREPARE_NATIVE_COMMAND}\` again.`,
    );
  return built;
}

/** The telling line of a failed rebuild: a network error when there is one, else the first error line. */
function reasonOf(err: unknown): string {
  const output = `${(err as { stdout?: string }).stdout ?? ''}\n${(err as { stderr?: string }).stderr ?? ''}`;
  // node-gyp says "related to network connectivity" when Electron's headers cannot be downloaded.
  const network = output.match(
    /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|network connectivity)\b/,
  );
  if (network) return `Electron's headers could not be downloaded: ${network[1]}`;
  const line = output.split('\n').find((l) => /error/i.test(l) && !/^\s*at /.test(l));
  return (line ?? 'the rebuild failed')
    .trim()
    .replace(/^(gyp ERR!|Error:)\s*/i, '')
    .slice(0, 160);
}

async function main(): Promise<void> {
  try {
    const prepared = await prepareElectronSqlite({ root: process.cwd() });
    if (prepared.how !== 'cached')
      console.log(
        `better-sqlite3 for Electron ${prepared.electronVersion} (${prepared.how === 'n-api' ? 'N-API, Node build copied' : 'rebuilt'}): ${path.relative(process.cwd(), prepared.path)}`,
      );
  } catch (err) {
    console.error(
      err instanceof PrepareError
        ? err.message
        : `SheetPort: could not prepare better-sqlite3 for Electron (${err instanceof Error ? err.message : String(err)}); run \`${PREPARE_NATIVE_COMMAND}\` again.`,
    );
    process.exitCode = 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) await main();
