/**
 * `sheetport admin-token [--rotate]`: the local admin token of `/admin`, read from the data dir's secrets
 * provider. `--rotate` replaces it: through the running server when one runs on the data dir (it holds the token,
 * the dashboard sessions and the sign-in codes in memory, and drops them all), else in the provider directly.
 */
import type { Command } from 'commander';
import { resolveDataDir } from '../config.ts';
import { openSqliteRepositories, type SqliteRepositories } from '../store/sqlite-repositories.ts';
import { CliError, globals, print, printJson } from './kit.ts';
import { askRunningServer, findRunningServer } from './running-server.ts';

function open(dataDir: string): SqliteRepositories {
  try {
    return openSqliteRepositories(dataDir);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new CliError('internal_error', `Cannot open the SheetPort data dir ${dataDir}: ${reason}`);
  }
}

export function registerAdminCommands(program: Command): void {
  program
    .command('admin-token')
    .description('print the local admin token of /admin (kept in the OS keychain or the 0600 secrets file)')
    .option(
      '--rotate',
      'replace the token: the old one, every dashboard session and every sign-in link stop working',
    )
    .action(async (opts: { rotate?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const dataDir = resolveDataDir({ flag: g.dataDir });
      const stores = open(dataDir);
      try {
        let token = stores.adminTokens.loadOrCreate();
        let running = false;
        if (opts.rotate) {
          const info = await findRunningServer(dataDir);
          running = info !== null;
          if (info) {
            await askRunningServer(info, token, '/admin/admin-token/rotate');
            token = stores.adminTokens.loadOrCreate();
          } else {
            token = stores.adminTokens.rotate();
          }
        }
        const provider = stores.secrets;
        if (g.json) {
          return printJson({
            admin_token: token,
            secrets: provider.kind,
            ...(opts.rotate ? { rotated: true, server_running: running } : {}),
          });
        }
        print(token);
      } finally {
        await stores.close();
      }
    });
}
