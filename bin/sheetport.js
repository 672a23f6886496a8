#!/usr/bin/env node
// The `sheetport` command. In a checkout it runs the TypeScript CLI directly (Node's type stripping); Node
// refuses to strip types under node_modules, and an installed package ships only the compiled build's bundle
// (`dist/bundle/`, made by `npm run build`, which `npm pack` runs first: a few files, each entry by its own
// name), so anywhere else it runs that. SHEETPORT_FROM_BUILD=1 runs the bundle in a checkout too, as an installed
// copy runs (the benchmarks measure that way: type stripping costs every thread its own compiler, about 30 MB and
// 0.3 s a thread).
import { existsSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { mallocTunablesFor } from './malloc-tunables.js';

/**
 * On Linux, glibc's allocator told to give memory back (bin/malloc-tunables.js): the process replaces itself
 * once, before anything loads, with them in its environment (about 25 ms), since glibc reads them only at a
 * process's start. A user's own malloc setting is kept as it is; the container image sets them itself, so its
 * processes never restart.
 */
function withMallocTunables() {
  if (typeof process.execve !== 'function') return;
  const GLIBC_TUNABLES = mallocTunablesFor(process.env);
  if (GLIBC_TUNABLES === undefined) return;
  const args = [...process.execArgv, ...process.argv.slice(1)];
  try {
    process.execve(process.execPath, [process.execPath, ...args], { ...process.env, GLIBC_TUNABLES });
  } catch {
    // Not started again (execve refused): the command runs as it is, with the allocator's defaults.
  }
}
withMallocTunables();

/**
 * V8's compiled code for the modules, kept between runs in the user's own cache folder (Node's compile cache):
 * a start compiles again only what changed, about 30 ms of every start. Set in the environment too, so the
 * service's threads use it. NODE_COMPILE_CACHE, when given, names another folder; NODE_DISABLE_COMPILE_CACHE=1
 * turns it off. A folder that cannot be made costs nothing: the modules compile as without it.
 */
function userCompileCache() {
  const home = homedir();
  if (process.platform === 'win32')
    return path.join(
      process.env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'),
      'SheetPort',
      'compile-cache',
    );
  if (process.platform === 'darwin')
    return path.join(home, 'Library', 'Caches', 'SheetPort', 'compile-cache');
  return path.join(process.env.XDG_CACHE_HOME || path.join(home, '.cache'), 'sheetport', 'compile-cache');
}
if (!process.env.NODE_DISABLE_COMPILE_CACHE) {
  process.env.NODE_COMPILE_CACHE ||= userCompileCache();
  enableCompileCache(process.env.NODE_COMPILE_CACHE);
}

const root = new URL('../', import.meta.url);
const fromSource =
  process.env.SHEETPORT_FROM_BUILD !== '1' &&
  !import.meta.url.includes('/node_modules/') &&
  existsSync(new URL('server/cli.ts', root));
const module = (name) =>
  new URL(fromSource ? `server/${name}.ts` : `dist/bundle/${name.split('/').at(-1)}.js`, root);
if (!fromSource && !existsSync(module('cli'))) {
  process.stderr.write(
    'error: this copy of SheetPort has no compiled build (dist/); run `npm run build` first.\n',
  );
  process.exit(1);
}
// Before anything else loads: V8's heap sizing for a long-lived, small service (server/small-footprint.ts), and
// who started this process (a demo under `npm start` stops when that is gone: server/cli/stop-with-parent.ts).
await import(module('small-footprint-first').href);
await import(module('cli/stop-with-parent').href);
const { main } = await import(module('cli').href);
process.exitCode = await main(process.argv.slice(2));
