/**
 * `sheetport dashboard [--no-browser]`: the running server's dashboard URL with the admin token in its fragment
 * (`/ui/#token=...`; browsers never send a fragment), opened in the default browser or printed. The server is
 * found through `<data dir>/server.json`, which it writes at start and removes at stop.
 */
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { resolveDataDir } from '../config.ts';
import { isLoopbackName } from '../lib/host-names.ts';
import { readServerInfo, type ServerInfo } from '../server-info.ts';
import { loadOrCreateAdminToken } from '../store/admin-token.ts';
import { openDatabase } from '../store/db.ts';
import { CliError, globals, print, printJson } from './kit.ts';

/** The dashboard URL: always a loopback name (the dashboard answers nowhere else). */
export function dashboardUrl(info: ServerInfo, token: string): string {
  const base = new URL(info.url);
  const host = base.hostname.replace(/^\[|\]$/g, '');
  const origin = isLoopbackName(host) ? base.origin : `http://127.0.0.1:${info.port}`;
  return `${origin}/ui/#token=${encodeURIComponent(token)}`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The platform's "open this URL" program. */
function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => print(`Could not start a browser; open this URL yourself:\n  ${url}`));
  child.unref();
}

export function registerDashboardCommand(program: Command): void {
  program
    .command('dashboard')
    .description("open the running server's dashboard in a browser (logged in with the admin token)")
    .option('--no-browser', 'print the URL instead of opening it')
    .action(async (opts: { browser: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const dataDir = resolveDataDir({ flag: g.dataDir });
      const info = await readServerInfo(dataDir);
      if (!info || !isAlive(info.pid)) {
        throw new CliError(
          'not_found',
          `No SheetPort server is running on ${dataDir}. Start one with: sheetport serve`,
        );
      }
      const db = openDatabase(dataDir);
      let token: string;
      try {
        token = loadOrCreateAdminToken(db, dataDir);
      } finally {
        db.close();
      }
      const url = dashboardUrl(info, token);
      if (g.json) return printJson({ url, opened: opts.browser });
      if (!opts.browser) return print(url);
      print(`Opening the dashboard of ${info.url} ...`);
      openInBrowser(url);
    });
}
