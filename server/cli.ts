/**
 * The `sheetport` command line. Every command takes `--data-dir <dir>` and `--json`. Errors are one line on
 * stderr (`{"error":{code,message}}` with --json) and exit code 1; stack traces only with SHEETPORT_DEBUG=1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { registerDeliveryCommands } from './cli/deliveries.ts';
import { registerWebhookCommands } from './cli/webhooks.ts';
import { DATA_DIR_ENV, DEFAULT_HOST, DEFAULT_PORT, resolveDataDir } from './config.ts';
import { toPublicSheetId } from './connections/sheet-id.ts';
import { type ErrorCode, isAppError } from './errors.ts';
import { limitsOf } from './limits/plans.ts';
import { usageReport } from './limits/usage-report.ts';
import type { SpreadsheetSnapshot } from './sources/source.ts';
import {
  type ApiKeyRecord,
  ApiKeyStore,
  KEY_PLANS,
  KEY_SCOPES,
  type KeyPlan,
  type KeyScope,
} from './store/api-keys.ts';
import { type ConnectionRecord, ConnectionStore } from './store/connections.ts';
import { openDatabase } from './store/db.ts';
import { DeliveryStore } from './store/deliveries.ts';
import { UsageStore } from './store/usage.ts';
import { WebhookStore } from './store/webhooks.ts';

/** File types `connect` accepts. */
const WORKBOOK_EXTENSIONS = ['.xlsx', '.csv'];

interface GlobalOptions {
  dataDir?: string;
  json?: boolean;
}

/** Thrown by command actions; printed as one line. */
class CliError extends Error {
  readonly code: ErrorCode | 'usage';
  constructor(code: ErrorCode | 'usage', message: string) {
    super(message);
    this.code = code;
  }
}

/** Run the CLI with user arguments (no `node` / script path). Resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  // Known before parsing, so even commander's own parse errors come out as JSON when asked.
  const json = argv.includes('--json');
  const program = buildProgram(json);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; parse errors were already printed by outputError below.
      return err.exitCode;
    }
    printError(err, json);
    return 1;
  }
}

function buildProgram(json: boolean): Command {
  const program = new Command('sheetport')
    .description('Use a spreadsheet as a database: rows of a local .xlsx/.csv tab as records over HTTP.')
    .option('--data-dir <dir>', `data directory (default: $${DATA_DIR_ENV}, else the OS app-data folder)`)
    .option('--json', 'machine-readable output')
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      outputError: (message, write) => {
        const text = message.trim().replace(/^error:\s*/i, '');
        if (json) write(`${JSON.stringify({ error: { code: 'invalid_parameter', message: text } })}\n`);
        else write(`error: ${text}\n`);
      },
    });

  program
    .command('serve')
    .description('run the HTTP service until stopped')
    .option('--port <port>', 'port to listen on', parsePort, DEFAULT_PORT)
    .option('--host <host>', 'interface to listen on', DEFAULT_HOST)
    .option('--allow-host <name>', 'extra Host header name to accept (repeatable)', collect, [] as string[])
    .option('--no-rate-limits', 'do not enforce per-key rate limits (usage is not counted either)')
    .option('--allow-lan-webhooks', 'let webhooks target private (LAN) addresses over https')
    .option('--delivery-log-days <n>', 'keep finished webhook deliveries this many days', parseCount, 30)
    .action(
      async (
        opts: {
          port: number;
          host: string;
          allowHost: string[];
          rateLimits: boolean;
          allowLanWebhooks?: boolean;
          deliveryLogDays: number;
        },
        cmd: Command,
      ) => {
        const g = globals(cmd);
        const { runServe } = await import('./serve.ts');
        await runServe({
          dataDir: resolveDataDir({ flag: g.dataDir }),
          port: opts.port,
          host: opts.host,
          allowedHosts: opts.allowHost,
          rateLimits: opts.rateLimits,
          allowLanWebhooks: opts.allowLanWebhooks === true,
          deliveryLogDays: opts.deliveryLogDays,
          json: g.json === true,
        });
      },
    );

  program
    .command('demo')
    .description('create a demo workbook and key, and run the service')
    .option('--port <port>', `port to listen on (default: ${DEFAULT_PORT}, or a free one if busy)`, parsePort)
    .action(async (opts: { port?: number }, cmd: Command) => {
      const g = globals(cmd);
      const { runDemo } = await import('./demo.ts');
      await runDemo({ dataDir: demoDataDir(g.dataDir), port: opts.port, json: g.json === true });
    });

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
    .action((id: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      withStores(g, ({ connections }) => {
        const found = connections.resolve(id);
        if (!found || !connections.remove(found.spreadsheetId)) {
          throw new CliError(
            'spreadsheet_not_found',
            `No connection with spreadsheet id or userKey '${id}'.`,
          );
        }
        if (g.json)
          return printJson({ removed: true, spreadsheet_id: found.spreadsheetId, name: found.name });
        print(`Removed ${found.name} (${found.spreadsheetId}). The file itself was not changed.`);
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

  const keys = program.command('keys').description('create, list or revoke API keys');
  keys
    .command('create')
    .description('create an API key (shown once)')
    .addOption(new Option('--scope <scope>', 'what the key may do').choices(KEY_SCOPES).default('read'))
    .option('--connection <id>', 'limit the key to this spreadsheet (repeatable; default: all)', collect, [])
    .option('--name <name>', 'label for the key')
    .option('--allow-formulas', 'let the key write formulas (strings starting with =)')
    .addOption(new Option('--plan <plan>', 'rate-limit plan').choices(KEY_PLANS).default('free'))
    .option('--per-second <n>', 'override the per-second request limit', parseCount)
    .option('--daily <n>', 'override the daily request limit', parseCount)
    .action(
      (
        opts: {
          scope: KeyScope;
          connection: string[];
          name?: string;
          allowFormulas?: boolean;
          plan: KeyPlan;
          perSecond?: number;
          daily?: number;
        },
        cmd: Command,
      ) => {
        const g = globals(cmd);
        withStores(g, ({ connections, keys }) => {
          const ids = opts.connection.map((ref) => {
            const c = connections.resolve(ref);
            if (!c) throw new CliError('spreadsheet_not_found', `Unknown connection '${ref}'.`);
            return c.spreadsheetId;
          });
          const { record, key } = keys.create({
            name: opts.name ?? '',
            scope: opts.scope,
            plan: opts.plan,
            connections: ids,
            allowFormulas: opts.allowFormulas === true,
            perSecond: opts.perSecond ?? null,
            daily: opts.daily ?? null,
          });
          if (g.json) {
            const { id, scope, ...rest } = keyJson(record);
            return printJson({ id, key, scope, ...rest });
          }
          print(
            [
              `Created API key ${record.id} (${record.scope}${record.connections.length ? `, ${record.connections.join(', ')}` : ', all spreadsheets'}):`,
              '',
              `  ${key}`,
              '',
              'Copy it now: it is stored only as a hash and cannot be shown again.',
            ].join('\n'),
          );
        });
      },
    );
  keys
    .command('list')
    .description('list API keys (never the keys themselves)')
    .action((_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      withStores(g, ({ keys }) => {
        const all = keys.list();
        if (g.json) return printJson(all.map(keyJson));
        if (all.length === 0) return print('No API keys yet. Create one with: sheetport keys create');
        printTable(
          ['ID', 'NAME', 'PREFIX', 'SCOPE', 'PLAN', 'CONNECTIONS', 'CREATED', 'LAST USED', 'REVOKED'],
          all.map((k) => [
            k.id,
            k.name || '-',
            `${k.prefix}…`,
            k.scope,
            k.plan,
            k.connections.length ? k.connections.join(',') : 'all',
            k.createdAt,
            k.lastUsedAt ?? '-',
            k.revokedAt ?? '-',
          ]),
        );
      });
    });
  keys
    .command('revoke')
    .description('revoke an API key; requests using it fail from now on')
    .argument('<id>', 'key id (key_...)')
    .action((id: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      withStores(g, ({ keys }) => {
        const before = keys.get(id);
        if (!before) throw new CliError('not_found', `No API key with id '${id}'.`);
        const revokedNow = keys.revoke(id);
        const after = keys.get(id);
        if (g.json) return printJson({ id, revoked: true, revoked_at: after?.revokedAt ?? null });
        print(revokedNow ? `Revoked ${id}.` : `${id} was already revoked (${before.revokedAt}).`);
      });
    });

  keys
    .command('set-plan')
    .description("change a key's rate-limit plan")
    .argument('<id>', 'key id (key_...)')
    .addOption(new Option('--plan <plan>', 'rate-limit plan').choices(KEY_PLANS).makeOptionMandatory())
    .option('--per-second <n>', 'enterprise: requests per rolling second', parseCount)
    .option('--daily <n>', 'enterprise: requests per UTC day', parseCount)
    .action((id: string, opts: { plan: KeyPlan; perSecond?: number; daily?: number }, cmd: Command) => {
      const g = globals(cmd);
      withStores(g, ({ keys }) => {
        const record = keys.setPlan(id, {
          plan: opts.plan,
          perSecond: opts.perSecond ?? null,
          daily: opts.daily ?? null,
        });
        if (!record) throw new CliError('not_found', `No API key with id '${id}'.`);
        if (g.json) return printJson(keyJson(record));
        const limits = limitsOf(record);
        print(
          `${record.id} is now on the ${record.plan} plan: ${limits.perSecond} requests/s, ${limits.daily} per day.`,
        );
      });
    });
  keys
    .command('usage')
    .description('requests per day (last 30 days) and refused requests by limit')
    .argument('<id>', 'key id (key_...)')
    .option('--days <n>', 'how many days back', parseCount, 30)
    .action((id: string, opts: { days: number }, cmd: Command) => {
      const g = globals(cmd);
      withStores(g, ({ keys, usage }) => {
        const record = keys.get(id);
        if (!record) throw new CliError('not_found', `No API key with id '${id}'.`);
        const report = usageReport(record, usage, Date.now(), Math.max(1, opts.days));
        if (g.json) return printJson(report);
        print(
          `${record.id} (${record.plan}: ${report.limits.per_second}/s, ${report.limits.daily}/day). ` +
            `Today: ${report.today.requests} requests, ${report.today.refused_per_second + report.today.refused_daily} refused.`,
        );
        if (report.days.length === 0) return print('No requests in this period.');
        printTable(
          ['DAY (UTC)', 'REQUESTS', 'REFUSED PER-SECOND', 'REFUSED DAILY'],
          report.days.map((d) => [
            d.day,
            String(d.requests),
            String(d.refused_per_second),
            String(d.refused_daily),
          ]),
        );
      });
    });

  const kit = { globals, withStores, print, printJson, printTable };
  registerWebhookCommands(program, kit);
  registerDeliveryCommands(program, kit);

  return program;
}

// ---------------------------------------------------------------------------------------------------------------

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
  const { createWorkbookSource } = await import('./sources/workbook/index.ts');
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
        ? sheets.map(
            (s) =>
              `    ${s.name}  ${s.row_count} row${s.row_count === 1 ? '' : 's'}  (sheet_id ${s.sheet_id})`,
          )
        : ['    (none)']),
    ];
    print(lines.join('\n'));
  });
}

interface Stores {
  connections: ConnectionStore;
  keys: ApiKeyStore;
  usage: UsageStore;
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
}

function withStores<T>(g: GlobalOptions, fn: (stores: Stores) => T): T {
  const dataDir = resolveDataDir({ flag: g.dataDir });
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase(dataDir);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new CliError('internal_error', `Cannot open the SheetPort database in ${dataDir}: ${reason}`);
  }
  try {
    return fn({
      connections: new ConnectionStore(db),
      keys: new ApiKeyStore(db),
      usage: new UsageStore(db),
      webhooks: new WebhookStore(db),
      deliveries: new DeliveryStore(db),
    });
  } finally {
    db.close();
  }
}

function globals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals<GlobalOptions>();
}

/** `demo` keeps its data in `<repo>/.demo` unless --data-dir or SHEETPORT_DATA_DIR says otherwise. */
function demoDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag || env[DATA_DIR_ENV]) return resolveDataDir({ flag, env });
  return fileURLToPath(new URL('../.demo', import.meta.url));
}

function connectionJson(c: ConnectionRecord) {
  return {
    spreadsheet_id: c.spreadsheetId,
    userKey: c.userKey,
    name: c.name,
    source: c.sourceKind,
    location: c.location,
    public_read: c.publicRead,
    created_at: c.createdAt,
  };
}

function keyJson(k: ApiKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scope: k.scope,
    plan: k.plan,
    connections: k.connections,
    allow_formulas: k.allowFormulas,
    per_second: k.perSecond,
    daily: k.daily,
    limits: { per_second: limitsOf(k).perSecond, daily: limitsOf(k).daily },
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    revoked_at: k.revokedAt,
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(n) || n < 0 || n > 65535) {
    throw new InvalidArgumentError('expected a port number from 0 to 65535.');
  }
  return n;
}

function parseCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('expected a whole number.');
  return n;
}

function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  print([line(header), ...rows.map(line)].join('\n'));
}

function printError(err: unknown, json: boolean): void {
  let code: string = 'internal_error';
  let message: string;
  if (err instanceof CliError || isAppError(err)) {
    code = err.code;
    message = err.message;
  } else if (err instanceof Error) {
    const sqliteBusy = (err as { code?: unknown }).code === 'SQLITE_BUSY';
    message = sqliteBusy
      ? 'The database is busy (another SheetPort process is writing); try again.'
      : err.message;
  } else {
    message = String(err);
  }
  message = message.replace(/\s*\n\s*/g, ' ').trim();
  if (json) process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  else process.stderr.write(`error: ${message}\n`);
  if (process.env.SHEETPORT_DEBUG && err instanceof Error && err.stack)
    process.stderr.write(`${err.stack}\n`);
}

// Run when executed directly (`node server/cli.ts ...`); bin/sheetport.js imports main() itself.
const entry = process.argv[1];
if (entry && import.meta.url === pathToFileURL(path.resolve(entry)).href) {
  process.exitCode = await main(process.argv.slice(2));
}
