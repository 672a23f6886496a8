import type { Command } from 'commander';
import { Option } from 'commander';
import { resolveDataDir } from '../config.ts';
import { connectSpreadsheet } from '../connections/connect.ts';
import { describeSpreadsheet } from '../connections/describe.ts';
import { forgetKept } from '../connections/forget-kept.ts';
import { isAppError } from '../errors.ts';
import { quantity } from '../lib/quantity.ts';
import { WORKBOOK_FILE_ARG } from '../lib/workbook-file-types.ts';
import { kindNames, sourceKind, sourceSettings } from '../sources/index.ts';
import { keptReadsPolicyFor } from '../sources/kept-reads.ts';
import {
  alignedLines,
  CliError,
  cliConfig,
  connectionJson,
  type GlobalOptions,
  globals,
  print,
  printJson,
  printTable,
  type Stores,
  withStores,
} from './kit.ts';

function kindHelp(): string {
  return kindNames()
    .map((name) => `${name}: ${sourceKind(name).describe}`)
    .join('; ');
}

export function registerConnectionCommands(program: Command): void {
  registerConnect(program);
  const connections = program.command('connections').description('list or remove registered spreadsheets');
  registerList(connections);
  registerRemove(connections);
  registerSet(connections);
}

/** `sheetport connect`. */
function registerConnect(program: Command): void {
  program
    .command('connect')
    .description(`register a spreadsheet: ${kindNames().join(' or ')} (kinds: ${kindHelp()})`)
    .argument(
      '<kind-or-location>',
      `where the spreadsheet lives (${kindNames()
        .map((name) => sourceKind(name).describe)
        .join(', or ')}), or its kind followed by that`,
    )
    .argument('[location]', 'where the spreadsheet lives, when a kind is given first')
    .option('--name <name>', 'display name (default: the spreadsheet title or file name)')
    .action(async (first: string, second: string | undefined, opts: { name?: string }, cmd: Command) => {
      await connect(first, second, opts, globals(cmd));
    });
}

/** `sheetport connections list`. */
function registerList(connections: Command): void {
  connections
    .command('list')
    .description('list registered spreadsheets')
    .action(async (_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      await withStores(g, async ({ connections }) => {
        const all = await connections.list();
        if (g.json) return printJson(all.map(connectionJson));
        if (all.length === 0)
          return print(`No connections yet. Add one with: sheetport connect ${WORKBOOK_FILE_ARG}`);
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
}

/** `sheetport connections remove`. */
function registerRemove(connections: Command): void {
  connections
    .command('remove')
    .description('forget a spreadsheet (the file itself is not touched)')
    .argument('<id>', 'spreadsheet id or userKey')
    .option('--force', 'also remove the webhooks registered on it (and their delivery logs)')
    .action(async (id: string, opts: { force?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      await withStores(g, async ({ connections }) => {
        const found = await connections.resolve(id);
        const result = found
          ? await removeConnection(connections, found.spreadsheetId, opts.force === true)
          : null;
        if (!found || !result?.removed) {
          throw new CliError(
            'spreadsheet_not_found',
            `No connection with spreadsheet id or userKey '${id}'.`,
          );
        }
        await forgetKept(found, { keptReads: keptReadsOf(g) });
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
}

/** `sheetport connections set`. */
function registerSet(connections: Command): void {
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
    .action(async (id: string, opts: { publicRead?: 'on' | 'off' }, cmd: Command) => {
      const g = globals(cmd);
      await withStores(g, async ({ connections }) => {
        const found = await connections.resolve(id);
        if (!found)
          throw new CliError(
            'spreadsheet_not_found',
            `No connection with spreadsheet id or userKey '${id}'.`,
          );
        if (opts.publicRead === undefined)
          throw new CliError('invalid_parameter', 'Nothing to change: give --public-read on|off.');
        await connections.setPublicRead(found.spreadsheetId, opts.publicRead === 'on');
        const after = (await connections.resolve(found.spreadsheetId))!;
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

/** Where this data dir keeps reads for a later start (`connect` keeps one, `connections remove` drops it). */
function keptReadsOf(g: GlobalOptions) {
  return keptReadsPolicyFor(resolveDataDir({ flag: g.dataDir }), cliConfig().minFreeBytes);
}

/** The store's refusal, with the CLI's way out (`--force`) in the message. */
async function removeConnection(
  connections: Stores['connections'],
  spreadsheetId: string,
  force: boolean,
): Promise<{ removed: boolean; webhooksRemoved: string[] }> {
  try {
    return await connections.removeWithWebhooks(spreadsheetId, { force });
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

async function connect(
  first: string,
  second: string | undefined,
  opts: { name?: string },
  g: GlobalOptions,
): Promise<void> {
  // `connect <location>`, or `connect <kind> <location>` when the kind is said.
  const input = second === undefined ? { location: first } : { kind: first, location: second };
  // The bar's library loads with the command that draws it, not with every command.
  const { readProgressBar } = await import('./read-progress-bar.ts');
  const progress = readProgressBar(!g.json);
  const connected = await withStores(g, ({ connections, secrets }) =>
    connectSpreadsheet(
      connections,
      { ...input, ...(opts.name ? { name: opts.name } : {}) },
      {
        secrets,
        ...sourceSettings(cliConfig()),
        // Kept for `serve`, which then answers from it instead of parsing the file again.
        keptReads: keptReadsOf(g),
        ...(progress.onReadProgress ? { onReadProgress: progress.onReadProgress } : {}),
      },
    ),
  ).finally(() => progress.stop());
  const { connection, snapshot, created } = connected;
  const json = { ...describeSpreadsheet(connection, snapshot), location: connection.location, created };
  if (g.json) return printJson(json);
  const lines = [
    created ? `Connected ${connection.name}` : `Already connected: ${connection.name}`,
    `  location:        ${connection.location}`,
    `  spreadsheet_id:  ${connection.spreadsheetId}`,
    `  user_key:        ${connection.userKey}`,
    `  sheets:`,
    ...(json.sheets.length
      ? alignedLines(
          json.sheets.map((s) => [s.name, quantity(s.row_count, 'row'), `(sheet_id ${s.sheet_id})`]),
        ).map((line) => `    ${line}`)
      : ['    (none)']),
  ];
  print(lines.join('\n'));
}
