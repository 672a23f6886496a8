/** `sheetport serve` and `sheetport demo`: run the HTTP service (loaded lazily, only these commands need it). */
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { DEFAULT_HOST, DEFAULT_PORT, osDataDir, resolveDataDir } from '../config.ts';
import { runningFromSource } from '../lib/package-file.ts';
import { WORKBOOK_FILE_ARG } from '../lib/workbook-file-types.ts';
import { warmSourceWork } from '../sources/index.ts';
import { ALLOW_LAN_FLAG } from '../webhooks/target-safety.ts';
import {
  cliConfig,
  type GlobalOptions,
  globals,
  parseCount,
  parsePort,
  print,
  repeatableOption,
  useTeamDatabase,
  withStores,
} from './kit.ts';
import { cliCommand } from './shell-line.ts';

export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP service until stopped')
    .option('--port <port>', 'port to listen on', parsePort, DEFAULT_PORT)
    .option('--host <host>', 'interface to listen on', DEFAULT_HOST)
    .addOption(repeatableOption('--allow-host <name>', 'extra Host header name to accept', 'none'))
    .option('--no-rate-limits', 'do not enforce per-key rate limits (usage is not counted either)')
    .option(ALLOW_LAN_FLAG, 'let webhooks target private (LAN) addresses over https')
    .option('--delivery-log-days <n>', 'keep finished webhook deliveries this many days', parseCount, 30)
    .option('--tunnel', 'also serve /api and /v1 (only) at a public ngrok URL; see `sheetport tunnel token`')
    .option(
      '--database <url>',
      'team mode: keep every store in this PostgreSQL database (as SHEETPORT_DATABASE_URL; docs/deploy.md)',
    )
    .action(
      async (
        opts: {
          port: number;
          host: string;
          allowHost: string[];
          rateLimits: boolean;
          allowLanWebhooks?: boolean;
          deliveryLogDays: number;
          tunnel?: boolean;
          database?: string;
        },
        cmd: Command,
      ) => {
        const g = globals(cmd);
        if (opts.database) useTeamDatabase(opts.database);
        const dataDir = resolveDataDir({ flag: g.dataDir });
        const config = cliConfig();
        // A local file's parse thread loads its modules on the other core while this one loads the service's: a
        // workbook read at start then begins at once (the service opens it with the same limits).
        warmSourceWork(config);
        const { runServe } = await import('./run-serve.ts');
        await runServe({
          dataDir,
          config,
          port: opts.port,
          host: opts.host,
          allowedHosts: opts.allowHost,
          rateLimits: opts.rateLimits,
          allowLanWebhooks: opts.allowLanWebhooks === true,
          deliveryLogDays: opts.deliveryLogDays,
          tunnel: opts.tunnel === true,
          json: g.json === true,
        });
        if (!g.json) for (const line of await nextSteps(g, dataDir)) print(line);
      },
    );

  program
    .command('demo')
    .description('create a demo workbook and key, and run the service')
    .option('--port <port>', `port to listen on (default: ${DEFAULT_PORT}, or a free one if busy)`, parsePort)
    .action(async (opts: { port?: number }, cmd: Command) => {
      const g = globals(cmd);
      const { runDemo } = await import('./run-demo.ts');
      await runDemo({ dataDir: demoDataDir(g.dataDir), port: opts.port, json: g.json === true });
    });
}

/**
 * `demo` keeps its data apart from the real data dir, so trying SheetPort leaves no keys or connections behind:
 * `<checkout>/.demo` in a checkout, `<OS app-data>/SheetPort-demo` in an installed copy (whose own folder may not
 * be writable). --data-dir or SHEETPORT_DATA_DIR override; `npm start` prints the line that points the CLI there.
 */
export function demoDataDir(flag: string | undefined, fromEnv = cliConfig().dataDir): string {
  if (flag) return resolveDataDir({ flag });
  if (fromEnv) return fromEnv;
  // Two levels up from server/cli/: the checkout's root.
  if (runningFromSource()) return fileURLToPath(new URL('../../.demo', import.meta.url));
  return `${osDataDir()}-demo`;
}

/**
 * After `serve` has started on a data dir with nothing to serve yet, the next steps, as command lines that work
 * when pasted (carrying the data dir unless it is the default one).
 */
async function nextSteps(g: GlobalOptions, dataDir: string): Promise<string[]> {
  const { connections, keys } = await withStores(g, async (stores) => ({
    connections: (await stores.connections.list()).length,
    keys: (await stores.keys.list()).filter((k) => !k.revokedAt).length,
  }));
  if (connections > 0 && keys > 0) return [];
  const isDefault = dataDir === osDataDir();
  const cli = cliCommand(isDefault ? null : dataDir);
  const steps = [`Data dir: ${dataDir}`];
  if (connections === 0)
    steps.push(
      'No spreadsheets connected yet. In another terminal:',
      `  ${cli} connect ${WORKBOOK_FILE_ARG}`,
    );
  if (keys === 0)
    steps.push(
      connections === 0
        ? `  ${cli} keys create --scope read_write`
        : `No API keys yet. In another terminal:\n  ${cli} keys create --scope read_write`,
    );
  steps.push(`(To try SheetPort on a ready-made workbook instead: ${cliCommand(null)} demo)`);
  return steps;
}
