/** `sheetport accounts list|logout [account]`: the logins of a kind with accounts (the first such kind by default). */
import type { Command } from 'commander';
import { accountsOf, defaultAccountsKind, sourceSettings } from '../sources/index.ts';
import { cliConfig, globals, print, printJson, printTable, withSecrets } from './kit.ts';

export function registerAccountCommands(program: Command): void {
  const kind = defaultAccountsKind();
  const provider = accountsOf(kind).provider;
  const KIND_OPTION = ['--kind <kind>', 'the kind of source the accounts belong to', kind] as const;
  const accounts = program.command('accounts').description(`list or log out of ${provider} accounts`);
  accounts
    .command('list')
    .description('list logged-in accounts and which one is the default')
    .option(...KIND_OPTION)
    .action(async (opts: { kind: string }, cmd: Command) => {
      const g = globals(cmd);
      const all = await withSecrets(g, (secrets) => accountsOf(opts.kind).list(secrets));
      if (g.json) return printJson(all);
      if (all.length === 0) return print(`No accounts. Log in with: sheetport login ${opts.kind}`);
      printTable(
        ['ACCOUNT', 'DEFAULT'],
        all.map((a) => [a.account, a.default ? 'yes' : '']),
      );
    });
  accounts
    .command('logout')
    .description(`revoke the access at ${provider} and delete the stored tokens`)
    .argument('[account]', 'the account (default: the default account)')
    .option(...KIND_OPTION)
    .action(async (account: string | undefined, opts: { kind: string }, cmd: Command) => {
      const g = globals(cmd);
      const of = accountsOf(opts.kind);
      const outcome = await withSecrets(g, (secrets) =>
        of.logout({ secrets, sources: sourceSettings(cliConfig()), ...(account ? { account } : {}) }),
      );
      if (g.json) return printJson(outcome);
      const note =
        outcome.revoked === 'revoked'
          ? `access revoked at ${of.provider}`
          : outcome.revoked === 'already_revoked'
            ? `${of.provider} had already ended the access`
            : `${of.provider} could not be told; remove SheetPort at ${of.permissionsUrl}`;
      print(`Logged out ${outcome.account}: tokens deleted, ${note}.`);
    });
}
