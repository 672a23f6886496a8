/**
 * `sheetport tunnel token [--remove]`: the public tunnel's (ngrok's) authtoken, kept in the data dir's secrets
 * provider (the OS keychain or the 0600 secrets file). It is read from standard input, typed without echo at a
 * terminal, never taken as an argument (which would stay in the shell history and the process list), and never
 * printed. `sheetport serve --tunnel` (or the tray) opens the tunnel with it.
 */
import type { Command } from 'commander';
import { SECRET_NAMES, type SecretsProvider } from '../secrets/provider.ts';
import { CliError, globals, print, printJson, withSecrets } from './kit.ts';
import { readHidden } from './passphrase.ts';

/** ngrok's authtokens are one word of letters, digits and `_`; anything with spaces inside is a paste gone wrong. */
const TOKEN = /^[A-Za-z0-9_.-]{8,512}$/;

/** Check and store an authtoken as typed or piped (surrounding whitespace and a final newline are dropped). */
export function storeTunnelAuthtoken(secrets: SecretsProvider, raw: string): void {
  const token = raw.trim();
  if (token === '') throw new CliError('usage', 'No authtoken given on standard input; nothing was stored.');
  if (!TOKEN.test(token)) {
    throw new CliError(
      'usage',
      'That does not look like an ngrok authtoken (one word of letters, digits and _); nothing was stored.',
    );
  }
  secrets.set(SECRET_NAMES.tunnelAuthtoken, token);
}

async function readStdin(): Promise<string> {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) text += chunk as string;
  return text;
}

export function registerTunnelCommands(program: Command): void {
  const tunnel = program
    .command('tunnel')
    .description('the optional public tunnel (ngrok) of /api and /v1: its authtoken');
  tunnel
    .command('token')
    .description('store the ngrok authtoken, read from standard input, in the secrets provider')
    .option('--remove', 'delete the stored authtoken instead')
    .action(async (opts: { remove?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      return withSecrets(g, async (secrets) => {
        const where = secrets.kind === 'keychain' ? 'the OS keychain' : secrets.where;
        if (opts.remove) {
          const removed = secrets.delete(SECRET_NAMES.tunnelAuthtoken);
          if (g.json) return printJson({ removed, secrets: secrets.kind });
          return print(
            removed ? `Tunnel authtoken removed from ${where}.` : 'No tunnel authtoken was stored.',
          );
        }
        const raw = process.stdin.isTTY
          ? await readHidden('ngrok authtoken (from dashboard.ngrok.com, not shown): ', 'Cancelled.')
          : await readStdin();
        storeTunnelAuthtoken(secrets, raw);
        if (g.json) return printJson({ stored: true, secrets: secrets.kind });
        print(`Tunnel authtoken stored in ${where}. Open the tunnel with: sheetport serve --tunnel`);
      });
    });
}
