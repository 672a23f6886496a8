/** `sheetport serve` and `sheetport demo`: run the HTTP service (loaded lazily, only these commands need it). */
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { DATA_DIR_ENV, DEFAULT_HOST, DEFAULT_PORT, resolveDataDir } from '../config.ts';
import { ALLOW_LAN_FLAG } from '../webhooks/target-safety.ts';
import { collect, globals, parseCount, parsePort } from './kit.ts';

export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP service until stopped')
    .option('--port <port>', 'port to listen on', parsePort, DEFAULT_PORT)
    .option('--host <host>', 'interface to listen on', DEFAULT_HOST)
    .option('--allow-host <name>', 'extra Host header name to accept (repeatable)', collect, [] as string[])
    .option('--no-rate-limits', 'do not enforce per-key rate limits (usage is not counted either)')
    .option(ALLOW_LAN_FLAG, 'let webhooks target private (LAN) addresses over https')
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
        const { runServe } = await import('../serve.ts');
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
      const { runDemo } = await import('../demo.ts');
      await runDemo({ dataDir: demoDataDir(g.dataDir), port: opts.port, json: g.json === true });
    });
}

/** `demo` keeps its data in `<repo>/.demo` unless --data-dir or SHEETPORT_DATA_DIR says otherwise. */
function demoDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag || env[DATA_DIR_ENV]) return resolveDataDir({ flag, env });
  // Two levels up from server/cli/: the repo root (dist/ in a build).
  return fileURLToPath(new URL('../../.demo', import.meta.url));
}
