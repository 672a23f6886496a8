/** `sheetport connect <file>` and `sheetport connections list|remove|set`: the registered spreadsheets. */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { toPublicSheetId } from '../connections/sheet-id.ts';
import { isAppError } from '../errors.ts';
import type { SpreadsheetSnapshot } from '../sources/source.ts';
import {
  CliError,
  connectionJson,
  type GlobalOptions,
  globals,
  print,
  printJson,
  printTable,
  quantity,
  type Stores,
  withStores,
} from './kit.ts';

/** File types `connect` accepts. */
const WORKBOOK_EXTENSIONS = ['.xlsx', '.csv'];

export function registerConnectionCommands(program: Command): void {
  program
    .command('connect')
    .description('register a local .xlsx or .csv file')
    .argument('<file>', 'path to the workbook')
    .option('--name <name>', 'display name (default: the file name)')
    .action(async (file: string, opts: { name?: string }, cmd: Command) => {
      await connect(file, opts, globals(cmd));
    });

  const connections = program.command('connections').description('list or remove registered spreadsheets');
  connections
    .command('list')
    .description('list registered spreadsheets')
    .action((_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      withStores(g, ({ connections }) => {
        const all = connections.list();
        if (g.json) return printJson(all.map(connectionJson));
        if (all.length === 0)
          return print('No connections yet. Add one with: sheetport connect <file.xlsx|file.csv>');
        printTable(
          ['SPREADSHEET_ID', 'USER_KEY', 'NAME', 'SOURCE', 'PUBLIC', 'LOCATION'],
          all.map((c) => [
            c.spreadsheetId,
            c.userKey,
            c.name,
            c.sourceKind,
            c.publicRead ? 'yes' : 'no',
            c.location,
          ]),
        );
      });
    });
  connections
    .command('remove')
    .description('forget a spreadsheet (the file itself is not touched)')
    .argument('<id>', 'spreadsheet id or userKey')
    .option('--force', 'also remove the webhooks registered on it (and their delivery logs)')
    .action((id: string, opts: { force?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      withStores(g, ({ connections }) => {
        const found = connections.resolve(id);
        const result = found ? removeConnection(connections, found.spreadsheetId, opts.force === true) : null;
        if (!found || !result?.removed) {
          throw new CliError(
            'spreadsheet_not_found',
            `No connection with spreadsheet id or userKey '${id}'.`,
          );
        }
        const webhooks = result.webhooksRemoved;
        if (g.json) {
          return printJson({
            removed: true,
            spreadsheet_id: found.spreadsheetId,
            name: found.name,
            webhooks_removed: webhooks.length,
          });
        }
        if (webhooks.length === 0) {
          return print(`Removed ${found.name} (${found.spreadsheetId}). The file itself was not changed.`);
        }
        const what = webhooks.length === 1 ? 'its webhook' : `its ${webhooks.length} webhooks`;
        print(
          `Removed ${found.name} (${found.spreadsheetId}) and ${what} (${webhooks.join(', ')}). The file itself was not changed.`,
        );
      });
    });

  connections
    .command('set')
    .description("change a connection's settings")
    .argument('<id>', 'spreadsheet id or userKey')
    .addOption(
      new Option('--public-read <on|off>', 'let anyone on this machine read its rows without a key').choices([
        'on',
        'off',
      ]),
    )
    .action((id: string, opts: { publicRead?: 'on' | 'off' }, cmd: Command) => {
      const g = globals(cmd);
      withStores(g, ({ connections }) => {
        const found = connections.resolve(id);
        if (!found)
          throw new CliError(
            'spreadsheet_not_found',
            `No connection with spreadsheet id or userKey '${id}'.`,
          );
        if (opts.publicRead === undefined)
          throw new CliError('invalid_parameter', 'Nothing to change: give --public-read on|off.');
        connections.setPublicRead(found.spreadsheetId, opts.publicRead === 'on');
        const after = connections.resolve(found.spreadsheetId)!;
        if (g.json) return printJson(connectionJson(after));
        print(
          after.publicRead
            ? `${after.name}: public read ON. Its rows can be read without a key (limited per client address at the Free plan).`
            : `${after.name}: public read OFF. Every request needs an API key.`,
        );
      });
    });
}

// ---------------------------------------------------------------------------------------------------------------

/** The store's refusal, with the CLI's way out (`--force`) in the message. */
function removeConnection(
  connections: Stores['connections'],
  spreadsheetId: string,
  force: boolean,
): { removed: boolean; webhooksRemoved: string[] } {
  try {
    return connections.removeWithWebhooks(spreadsheetId, { force });
  } catch (err) {
    if (!isAppError(err) || err.code !== 'conflict') throw err;
    const ids = (err.details as { webhooks?: string[] }).webhooks ?? [];
    const them = ids.length === 1 ? 'it' : 'them';
    throw new CliError(
      'conflict',
      `${spreadsheetId} has ${ids.length === 1 ? 'a webhook' : `${ids.length} webhooks`} (${ids.join(', ')}). Delete ${them} with 'sheetport webhooks delete', or pass --force to remove ${them} with the connection.`,
    );
  }
}

async function connect(file: string, opts: { name?: string }, g: GlobalOptions): Promise<void> {
  const resolved = path.resolve(file);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(resolved);
  } catch {
    throw new CliError('not_found', `File not found: ${resolved}`);
  }
  if (!stat.isFile()) throw new CliError('invalid_parameter', `Not a file: ${resolved}`);
  const ext = path.extname(resolved).toLowerCase();
  if (!WORKBOOK_EXTENSIONS.includes(ext)) {
    throw new CliError(
      'unsupported_media_type',
      `Unsupported file type '${ext || path.basename(resolved)}': expected ${WORKBOOK_EXTENSIONS.join(' or ')}.`,
    );
  }
  // Canonical path (symlinks resolved) so the same file registered two ways is one connection.
  const location = fs.realpathSync.native(resolved);

  // Read before registering, so a file we cannot parse is never registered. Loaded lazily: exceljs is heavy.
  const { createWorkbookSource } = await import('../sources/workbook/index.ts');
  const source = createWorkbookSource(location);
  let snapshot: SpreadsheetSnapshot;
  try {
    snapshot = await source.read();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new CliError(isAppError(err) ? err.code : 'invalid_body', `Cannot read ${location}: ${reason}`);
  } finally {
    await source.close().catch(() => {});
  }

  withStores(g, ({ connections }) => {
    const existing = connections.getByLocation('workbook', location);
    const name = opts.name?.trim() || snapshot.title || path.basename(location);
    const record = existing ?? connections.create({ name, sourceKind: 'workbook', location });
    const sheets = snapshot.tabs.map((tab) => ({
      sheet_id: toPublicSheetId(record.spreadsheetId, tab.sourceSheetId),
      name: tab.name,
      row_count: tab.typed.length,
    }));
    if (g.json) {
      return printJson({
        userKey: record.userKey,
        spreadsheet_id: record.spreadsheetId,
        name: record.name,
        sheets,
      });
    }
    const lines = [
      existing ? `Already connected: ${record.name}` : `Connected ${record.name}`,
      `  file:            ${record.location}`,
      `  spreadsheet_id:  ${record.spreadsheetId}`,
      `  userKey:         ${record.userKey}`,
      `  sheets:`,
      ...(sheets.length
        ? sheets.map((s) => `    ${s.name}  ${quantity(s.row_count, 'row')}  (sheet_id ${s.sheet_id})`)
        : ['    (none)']),
    ];
    print(lines.join('\n'));
  });
}
