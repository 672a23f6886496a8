/**
 * `sheetport dashboard [--no-browser]`: the running server's dashboard, opened in the default browser with a
 * one-use sign-in code (`/ui/#code=...`, good for a minute; the page trades it for a session). The code comes
 * from the running server itself (codes live in its memory), asked over loopback with the admin token, which
 * never goes into a URL or onto a command line. The server is found through `<data dir>/server.json`.
 */
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { resolveDataDir } from '../config.ts';
import { dashboardSignInUrl } from '../server-info.ts';
import { loadOrCreateAdminToken } from '../store/admin-token.ts';
import { openDatabase } from '../store/db.ts';
import { CliError, globals, print, printJson } from './kit.ts';
import { askRunningServer, findRunningServer } from './running-server.ts';

/** How long an "open this URL" program may run before we take it that the browser started. */
const OPENER_GRACE_MS = 3000;

export type BrowserOutcome = { opened: true } | { opened: false; reason: string };

/**
 * The platform's "open this URL" program, and whether it worked: no display to show a browser on (Linux and the
 * BSDs without DISPLAY or WAYLAND_DISPLAY), a program that is missing or ends with a failure, is "not opened".
 */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<BrowserOutcome> {
  const platform = process.platform;
  if (platform !== 'darwin' && platform !== 'win32' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return Promise.resolve({ opened: false, reason: 'no display (DISPLAY and WAYLAND_DISPLAY are not set)' });
  }
  const [command, args] =
    platform === 'darwin'
      ? ['open', [url]]
      : platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: BrowserOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(grace);
      child.unref();
      resolve(outcome);
    };
    const child = spawn(command, args as string[], { stdio: 'ignore', detached: true, env });
    // Some openers stay in the foreground with the browser they started: still running means it started.
    const grace = setTimeout(() => settle({ opened: true }), OPENER_GRACE_MS);
    child.on('error', (err) => settle({ opened: false, reason: `${command}: ${err.message}` }));
    child.on('exit', (code, signal) =>
      settle(
        code === 0
          ? { opened: true }
          : { opened: false, reason: `${command} failed (${signal ?? `exit ${code}`})` },
      ),
    );
  });
}

export function registerDashboardCommand(program: Command): void {
  program
    .command('dashboard')
    .description("open the running server's dashboard in a browser, signed in with a one-use link")
    .option('--no-browser', 'print the sign-in URL (good once, for a minute) instead of opening it')
    .action(async (opts: { browser: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const dataDir = resolveDataDir({ flag: g.dataDir });
      const info = await findRunningServer(dataDir);
      if (!info) {
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
      const { code, expires_at } = await askRunningServer<{ code: string; expires_at: string }>(
        info,
        token,
        '/admin/sign-in-codes',
      );
      const url = dashboardSignInUrl(info.url, info.port, code);
      const outcome: BrowserOutcome = opts.browser
        ? await openInBrowser(url)
        : { opened: false, reason: 'not asked to' };
      if (g.json) printJson({ url, expires_at, opened: outcome.opened });
      else if (outcome.opened) print(`Opened the dashboard of ${info.url} in your browser.`);
      else print(url);
      if (opts.browser && !outcome.opened) {
        throw new CliError(
          'upstream_unavailable',
          `Could not open a browser (${outcome.reason}); open the URL above yourself within a minute (it signs in once).`,
        );
      }
    });
}
