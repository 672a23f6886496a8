/**
 * The passphrase that seals an account's tokens in the secrets file: the kind's variable when set
 * (SHEETPORT_GOOGLE_PASSPHRASE), else typed twice at the terminal without echo. Without a terminal and without
 * the variable there is no way to ask.
 */
import type { KindAccounts } from '../sources/index.ts';
import { CliError } from './kit.ts';

/** One line typed at the terminal without echo; Ctrl-C rejects with `cancelled`. */
export function readHidden(question: string, cancelled = 'Login cancelled.'): Promise<string> {
  return new Promise((resolve, reject) => {
    const input = process.stdin;
    process.stderr.write(question);
    input.setRawMode(true);
    input.resume();
    input.setEncoding('utf8');
    let typed = '';
    const done = (outcome: () => void) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      outcome();
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(() => resolve(typed));
        if (ch === '\u0003') return done(() => reject(new CliError('usage', cancelled)));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    input.on('data', onData);
  });
}

export async function askPassphrase(
  accounts: Pick<KindAccounts, 'provider' | 'passphraseEnv'>,
  /** The passphrase the configuration carries (from the environment variable), if any. */
  configured: string | undefined,
): Promise<string> {
  if (configured) return configured;
  const what = `the ${accounts.provider} login`;
  if (!process.stdin.isTTY) {
    throw new CliError('usage', `Set ${accounts.passphraseEnv} to the passphrase that encrypts ${what}.`);
  }
  const first = await readHidden(`Passphrase to encrypt ${what} (needed again by \`sheetport serve\`): `);
  const again = await readHidden('The same passphrase again: ');
  if (first !== again) throw new CliError('usage', 'The two passphrases differ; nothing was stored.');
  return first;
}
