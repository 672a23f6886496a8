/**
 * `sheetport mcp`: the MCP server on stdio. The server running on the data dir (`serve` or the tray app) serves
 * it, through its `/mcp` endpoint; with none running, the service is started in this process (loopback, a port
 * the system picks, so nothing the user runs is displaced) and serves it the same way. Either way stdio is only
 * bridged (server/mcp/stdio-bridge.ts): one MCP implementation, the server's. stdout carries JSON-RPC alone;
 * every log line goes to stderr.
 */
import { readFile } from 'node:fs/promises';
import { DEFAULT_HOST } from '../config.ts';
import { logStrayErrors, type RunningServer } from '../index.ts';
import { type BridgeEnd, bridgeStdio } from '../mcp/stdio-bridge.ts';
import { loopbackOrigin } from '../server-info.ts';
import { CliError, cliConfig } from './kit.ts';
import { findRunningServer } from './running-server.ts';
import { startService } from './start-service.ts';

/** The exit code of a missing or refused key: the client's config needs changing, not a retry. */
export const KEY_EXIT_CODE = 2;

export interface McpOptions {
  dataDir: string;
  keyFile?: string | undefined;
}

export async function runMcp(options: McpOptions): Promise<void> {
  // Whatever a module prints with console.log would corrupt the JSON-RPC stream: it goes to stderr instead.
  console.log = console.error;
  console.info = console.error;
  const key = await keyOf(options.keyFile);
  logStrayErrors();
  const running = await findRunningServer(options.dataDir);
  const service = running ? null : await startService(serviceOn(options.dataDir));
  const origin = running ? loopbackOrigin(running.url, running.port) : (service as RunningServer).url;
  const bridge = await bridgeStdio({
    url: new URL('/mcp', origin),
    key,
    log: (message) => process.stderr.write(`sheetport mcp: ${message}\n`),
  });
  const onSignal = () => void bridge.close();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  const end: BridgeEnd = await bridge.ended;
  await service?.stop();
  if (end === 'key_refused') {
    throw new CliError('unauthorized', 'The API key was refused (401).', KEY_EXIT_CODE);
  }
  if (end === 'server_gone') {
    throw new CliError('upstream_unavailable', `The SheetPort server at ${origin} no longer answers.`);
  }
}

function serviceOn(dataDir: string) {
  return { dataDir, config: cliConfig(), port: 0, host: DEFAULT_HOST };
}

/** `--key-file` (its first line), else SHEETPORT_KEY; neither is an error saying how to give one. */
async function keyOf(keyFile: string | undefined): Promise<string> {
  if (keyFile !== undefined) {
    let text: string;
    try {
      text = await readFile(keyFile, 'utf8');
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? String(err);
      throw new CliError(
        'invalid_parameter',
        `Cannot read the key file ${keyFile} (${reason}).`,
        KEY_EXIT_CODE,
      );
    }
    const key = text.split(/\r?\n/)[0]?.trim() ?? '';
    if (key) return key;
    throw new CliError('invalid_parameter', `The key file ${keyFile} is empty.`, KEY_EXIT_CODE);
  }
  const key = cliConfig().apiKey;
  if (key) return key;
  throw new CliError(
    'unauthorized',
    'No API key: set SHEETPORT_KEY or pass --key-file (`sheetport mcp config` makes a key and the client config).',
    KEY_EXIT_CODE,
  );
}
