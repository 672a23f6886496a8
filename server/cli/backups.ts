/**
 * `sheetport backups list|restore`: the versions of local files that writes through the service replaced, kept
 * under `<data dir>/backups/` (SHEETPORT_BACKUPS_* in config.ts). Works on the folder alone, without the database
 * or a running server; a running server sees a restore as an edit made outside it and re-reads the file.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { backupPolicyFor, resolveDataDir } from '../config.ts';
import { quantity } from '../lib/quantity.ts';
import { type BackupEntry, localBackups } from '../sources/index.ts';
import {
  CliError,
  cliConfig,
  type GlobalOptions,
  globals,
  iso,
  print,
  printJson,
  printTable,
} from './kit.ts';

export function registerBackupCommands(program: Command): void {
  const backups = program
    .command('backups')
    .description('list or restore the versions of local files kept before writes replaced them');

  backups
    .command('list')
    .description('list kept versions, newest first')
    .argument('[file]', 'only the versions of this file')
    .action(async (file: string | undefined, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const all = await localBackups().list(policyOf(g), file ? await namesOf(file) : undefined);
      if (g.json) return printJson(all.map(backupJson));
      if (all.length === 0) {
        return print(
          file
            ? `No backups of ${path.resolve(file)}.`
            : 'No backups yet. One is kept each time a write through SheetPort replaces a local workbook file.',
        );
      }
      printTable(
        ['ID', 'BACKED_UP_AT', 'SIZE', 'FILE'],
        all.map((b) => [b.id, iso(b.time), quantity(b.bytes, 'byte'), b.path ?? '(unknown)']),
      );
    });

  backups
    .command('restore')
    .description('put a kept version back in place of its file (the current version is kept first: undoable)')
    .argument('<id>', 'backup id (see: sheetport backups list)')
    .option('--yes', 'restore without asking')
    .action(async (id: string, opts: { yes?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const policy = policyOf(g);
      const kind = localBackups();
      const found = (await kind.list(policy)).find((b) => b.id === id);
      if (!found) throw new CliError('not_found', `No backup with id '${id}'; see: sheetport backups list`);
      if (!found.path)
        throw new CliError('not_found', `Backup ${id} does not say which file it is a version of.`);
      if (!opts.yes) await confirm(found);
      const warn = (message: string, err?: unknown) =>
        process.stderr.write(`warning: ${message}${err instanceof Error ? `: ${err.message}` : ''}\n`);
      const { restored, replaced } = await kind.restore(policy, id, warn);
      if (g.json)
        return printJson({ restored: backupJson(restored), replaced: replaced && backupJson(replaced) });
      print(
        [
          `Restored ${restored.path} to its version backed up at ${iso(restored.time)} (${quantity(restored.bytes, 'byte')}).`,
          replaced
            ? `The version it replaced is kept as ${replaced.id}; to undo: sheetport backups restore ${replaced.id}`
            : 'The file did not exist any more: it was created again.',
          'A running SheetPort sees this as an edit made outside it and re-reads the file.',
        ].join('\n'),
      );
    });
}

function policyOf(g: GlobalOptions) {
  return backupPolicyFor(resolveDataDir({ flag: g.dataDir }), cliConfig().backups);
}

/** The names a file's backups may be filed under: the path as given (absolute) and, if it exists, its real path. */
async function namesOf(file: string): Promise<string[]> {
  const given = path.resolve(file);
  const real = await realpath(given).catch(() => given);
  return real === given ? [given] : [given, real];
}

/** Asked on the terminal; without one, `--yes` is the only way to say yes. */
async function confirm(backup: BackupEntry): Promise<void> {
  const what = `${backup.path} with its version backed up at ${iso(backup.time)} (${quantity(backup.bytes, 'byte')})`;
  if (!process.stdin.isTTY) throw new CliError('usage', `Restoring replaces ${what}; add --yes to do it.`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`Replace ${what}? The current version is kept first. [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim()))
      throw new CliError('usage', 'Restore cancelled; nothing was changed.');
  } finally {
    rl.close();
  }
}

function backupJson(b: BackupEntry) {
  return { id: b.id, path: b.path, backed_up_at: iso(b.time), bytes: b.bytes, backup_file: b.file };
}
