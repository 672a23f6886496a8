/**
 * `sheetport export <file>` and `sheetport import <file>`: move a data dir's records (keys with their hashes,
 * plans and allow-lists, connections, webhooks with their secrets, usage per day) into a team's database, so
 * nobody re-creates them by hand. Export reads the data dir's SQLite; import writes into the database the
 * environment selects (SHEETPORT_DATABASE_URL: team mode). docs/deploy.md tells the steps.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { resolveDataDir } from '../config.ts';
import { createPrivateFileOnce } from '../lib/private-files.ts';
import { parseRecordsExport } from '../repositories/rules/export-format.ts';
import { DB_FILE_NAME, openDatabase } from '../store/db.ts';
import { exportRecords } from '../store/export-records.ts';
import { CliError, cliConfig, globals, print, printJson } from './kit.ts';

export function registerRecordCommands(program: Command): void {
  program
    .command('export')
    .description("write this data dir's keys, connections, webhooks and usage to a file (0600) for `import`")
    .argument(
      '<file>',
      'the file to write (must not exist); it holds webhook secrets in clear: delete it after',
    )
    .action((file: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const dataDir = resolveDataDir({ flag: g.dataDir });
      if (!fs.existsSync(path.join(dataDir, DB_FILE_NAME))) {
        throw new CliError('not_found', `There is no SheetPort database in ${dataDir} to export.`);
      }
      const db = openDatabase(dataDir, { secretsChoice: cliConfig().secrets });
      let data: ReturnType<typeof exportRecords>;
      try {
        data = exportRecords(db);
      } finally {
        db.close();
      }
      const target = path.resolve(file);
      if (!createPrivateFileOnce(target, `${JSON.stringify(data, null, 2)}\n`)) {
        throw new CliError('conflict', `${target} exists already; give a new file name.`);
      }
      const summary = {
        file: target,
        connections: data.connections.length,
        keys: data.keys.length,
        webhooks: data.webhooks.length,
        usage_days: data.usage.length,
      };
      if (g.json) return printJson(summary);
      print(
        `Exported ${summary.keys} keys, ${summary.connections} connections, ${summary.webhooks} webhooks and ` +
          `${summary.usage_days} days of usage to ${target} (0600; it holds webhook secrets: delete it once imported).`,
      );
    });

  program
    .command('import')
    .description('add the records of an `export` file to the team database (SHEETPORT_DATABASE_URL)')
    .argument('<file>', 'a file `sheetport export` wrote')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const team = cliConfig().team;
      if (!team) {
        throw new CliError(
          'invalid_parameter',
          'import adds records to a team database: set SHEETPORT_DATABASE_URL and SHEETPORT_SECRET_KEY. ' +
            'To move SheetPort to another machine without one, copy the data dir instead.',
        );
      }
      const source = path.resolve(file);
      let text: string;
      try {
        text = fs.readFileSync(source, 'utf8');
      } catch (err) {
        throw new CliError('not_found', `Cannot read ${source}: ${(err as Error).message}`);
      }
      const data = parseRecordsExport(text, source);
      // The PostgreSQL client loads for this command alone: every other one, `serve` first, starts without it.
      const [{ importRecords }, { migrate }, { openPool }, { secretBoxFromKey }] = await Promise.all([
        import('../store-pg/import-records.ts'),
        import('../store-pg/migrate.ts'),
        import('../store-pg/pool.ts'),
        import('../store-pg/secret-key.ts'),
      ]);
      const box = secretBoxFromKey(team.secretKey);
      const pool = openPool(team.databaseUrl, { max: 1 });
      try {
        await migrate(pool);
        const counts = await importRecords(pool, box, data);
        if (g.json) return printJson({ file: source, ...counts });
        const line = (Object.keys(counts) as (keyof typeof counts)[])
          .map((list) => `${list}: ${counts[list].added} added, ${counts[list].present} already there`)
          .join('; ');
        print(`Imported ${source} into the team database. ${line}.`);
      } finally {
        await pool.end();
      }
    });
}
