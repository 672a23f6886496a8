/** `sheetport admin-token`: the local admin token of `/admin`, read from the data dir's secrets provider. */
import type { Command } from 'commander';
import { resolveDataDir } from '../config.ts';
import { secretsOf } from '../secrets/db-binding.ts';
import { loadOrCreateAdminToken } from '../store/admin-token.ts';
import { openDatabase } from '../store/db.ts';
import { CliError, globals, print, printJson } from './kit.ts';

export function registerAdminCommands(program: Command): void {
  program
    .command('admin-token')
    .description('print the local admin token of /admin (kept in the OS keychain or the 0600 secrets file)')
    .action((_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const dataDir = resolveDataDir({ flag: g.dataDir });
      let db: ReturnType<typeof openDatabase>;
      try {
        db = openDatabase(dataDir);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new CliError('internal_error', `Cannot open the SheetPort data dir ${dataDir}: ${reason}`);
      }
      try {
        const token = loadOrCreateAdminToken(db, dataDir);
        const { provider } = secretsOf(db);
        if (g.json) return printJson({ admin_token: token, secrets: provider.kind });
        print(token);
      } finally {
        db.close();
      }
    });
}
