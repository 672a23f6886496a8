/**
 * `sheetport mcp` (the MCP server on stdio, for a client that starts it: run-mcp.ts, loaded only then) and
 * `sheetport mcp config` (a fresh key and the snippets that add SheetPort to Claude Desktop, VS Code, Cursor,
 * and the Streamable HTTP form while a server runs).
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { resolveDataDir } from '../config.ts';
import { sheetportLaunch } from '../lib/sheetport-command.ts';
import { MCP_CLIENTS, MCP_KEY_NAME, mcpClientConfigs, mcpCommandArgs } from '../mcp/client-config.ts';
import { KEY_SCOPES, type KeyScope } from '../repositories/keys.ts';
import { loopbackOrigin } from '../server-info.ts';
import { globals, keyJson, print, printJson, withStores } from './kit.ts';
import { findRunningServer } from './running-server.ts';

export function registerMcpCommands(program: Command): void {
  const mcp = program
    .command('mcp')
    .description(
      'the MCP server on stdio, for an AI assistant that starts it (key: $SHEETPORT_KEY or --key-file)',
    )
    .option('--key-file <file>', 'read the API key from this file instead of $SHEETPORT_KEY')
    .action(async (opts: { keyFile?: string }, cmd: Command) => {
      const g = globals(cmd);
      const { runMcp } = await import('./run-mcp.ts');
      await runMcp({ dataDir: resolveDataDir({ flag: g.dataDir }), keyFile: opts.keyFile });
    });
  registerConfig(mcp);
}

/** `mcp config`: a new key (shown once, inside the snippets) and the snippets for each client. */
function registerConfig(mcp: Command): void {
  mcp
    .command('config')
    .description('create an API key and print the config that adds SheetPort to an MCP client')
    .addOption(new Option('--scope <scope>', 'what the key may do').choices(KEY_SCOPES).default('read'))
    .option('--name <name>', 'label for the key', MCP_KEY_NAME)
    .action(async (opts: { scope: KeyScope; name: string }, cmd: Command) => {
      const g = globals(cmd);
      const dataDir = resolveDataDir({ flag: g.dataDir });
      const { record, key } = await withStores(g, ({ keys }) =>
        keys.create({ name: opts.name, scope: opts.scope }),
      );
      const running = await findRunningServer(dataDir);
      const configs = mcpClientConfigs({
        stdio: sheetportLaunch(mcpCommandArgs(dataDir)),
        key,
        httpUrl: running ? `${loopbackOrigin(running.url, running.port)}/mcp` : null,
      });
      if (g.json) {
        // The shape of `keys create --json` and of POST /admin/mcp-config.
        const { id, scope, ...rest } = keyJson(record);
        return printJson({ id, key, scope, ...rest, data_dir: dataDir, configs });
      }
      print(
        `Created API key ${record.id} (${record.scope}, all spreadsheets) for an MCP client. It is in the ` +
          'snippets below and cannot be shown again: keep them private.',
      );
      for (const client of MCP_CLIENTS) {
        const snippet = configs[client.id];
        if (snippet) print(`\n${client.label} (${client.where}):\n${JSON.stringify(snippet, null, 2)}`);
      }
      if (!running)
        print('\nStreamable HTTP: no server runs on this data dir; `sheetport serve` serves /mcp too.');
    });
}
