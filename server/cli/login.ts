/**
 * `sheetport login google [--no-browser] [--allow-file-storage]`: the desktop OAuth flow of the kind named, its
 * tokens stored in the data dir's secrets provider (never printed). The kind is reached through the registry.
 */
import type { Command } from 'commander';
import { accountsOf, defaultAccountsKind, sourceSettings } from '../sources/index.ts';
import { cliConfig, globals, print, printJson, withSecrets } from './kit.ts';
import { openInBrowser } from './open-browser.ts';
import { askPassphrase } from './passphrase.ts';

interface LoginFlags {
  browser: boolean;
  allowFileStorage?: boolean;
}

export function registerLoginCommand(program: Command): void {
  program
    .command('login')
    .description(
      `log in to a ${accountsOf(defaultAccountsKind()).provider} account and make it the default (tokens go to the OS keychain)`,
    )
    .argument('<kind>', `the kind of source whose account to log in to: ${defaultAccountsKind()}`)
    .option('--no-browser', 'print the consent URL instead of opening a browser')
    .option(
      '--allow-file-storage',
      'where no OS keychain exists, keep the login in the secrets file, encrypted with a passphrase',
    )
    .action(async (kind: string, opts: LoginFlags, cmd: Command) => {
      const g = globals(cmd);
      // With --json, stdout carries only the result; the steps go to stderr.
      const say = g.json ? (line: string) => process.stderr.write(`${line}\n`) : print;
      const accounts = accountsOf(kind);
      const sources = sourceSettings(cliConfig());
      const outcome = await withSecrets(g, (secrets) =>
        accounts.login({
          secrets,
          sources,
          allowFileStorage: opts.allowFileStorage === true,
          passphrase: () => askPassphrase(accounts, accounts.passphrase(sources)),
          showConsentUrl: (url) => {
            if (!opts.browser) {
              say('Open this URL in a browser and allow access:');
              say(url);
            } else {
              say(`Opening the ${accounts.provider} consent page in your browser. If none opens, visit:`);
              say(url);
              void openInBrowser(url).then((outcome) => {
                if (!outcome.opened)
                  say(`Could not start a browser (${outcome.reason}); open the URL above yourself.`);
              });
            }
            say(`Waiting for ${accounts.provider} ...`);
          },
        }),
      );
      if (g.json) return printJson({ ...outcome, default: true });
      const kept =
        outcome.storage === 'keychain'
          ? 'the OS keychain'
          : outcome.storage === 'database'
            ? `${outcome.where}, sealed with the team's secrets key`
            : `${outcome.where}, encrypted with your passphrase`;
      print(`Logged in as ${outcome.account} (now the default account); the tokens are in ${kept}.`);
    });
}
