/**
 * `sheetport dashboard [--no-browser]`: the running server's dashboard, opened in the default browser with a
 * one-use sign-in code (`/ui/#code=...`, good for a minute; the page trades it for a session). The code comes
 * from the running server itself (codes live in its memory), asked over loopback with the admin token, which
 * never goes into a URL or onto a command line. The server is found through `<data dir>/server.json`.
 */
import type { Command } from 'commander';
import { resolveDataDir } from '../config.ts';
import { dashboardSignInUrl } from '../server-info.ts';
import { openSqliteRepositories } from '../store/sqlite-repositories.ts';
import { CliError, globals, print, printJson } from './kit.ts';
import { type BrowserOutcome, openInBrowser } from './open-browser.ts';
import { askRunningServer, findRunningServer } from './running-server.ts';

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
      const stores = openSqliteRepositories(dataDir);
      let token: string;
      try {
        token = stores.adminTokens.loadOrCreate();
      } finally {
        await stores.close();
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
