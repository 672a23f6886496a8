/**
 * `/admin/accounts`: the dashboard's account logins, for the kinds that log in (reached through the registry by
 * the kind named in the path, never by name here). A login runs the kind's own flow in the server process, the
 * one `sheetport login` runs, and its tokens go to the data dir's secrets provider the same way; logging out is
 * `sheetport accounts logout`. Access `admin`, like the rest of `/admin`.
 */
import { AppError } from '../errors.ts';
import type { SecretsProvider } from '../secrets/provider.ts';
import { accountsOf, type KindAccounts, kindNames, sourceKind } from '../sources/index.ts';
import type { AccountLogins } from './account-logins.ts';
import { adminBody } from './admin.ts';
import type { AppDeps } from './deps.ts';
import type { RouteTable } from './route-table.ts';

/** Where the tokens would go, and whether a login can be kept there as things stand. */
function accountsJson(
  kind: string,
  accounts: KindAccounts,
  secrets: SecretsProvider,
  passphrase: string | undefined,
) {
  return {
    kind,
    provider: accounts.provider,
    describe: sourceKind(kind).describe,
    accounts: accounts.list(secrets),
    storage: secrets.kind,
    storage_where: secrets.where,
    passphrase_env: accounts.passphraseEnv,
    passphrase_set: Boolean(passphrase),
  };
}

/**
 * Without an OS keychain the tokens can only go, sealed, into the secrets file, and only when the user said so;
 * the passphrase must come from the server's environment (the page never carries it, and the server needs it
 * again to use the login).
 */
function checkFileStorage(
  accounts: KindAccounts,
  secrets: SecretsProvider,
  allowed: boolean,
  passphrase: string | undefined,
): void {
  if (secrets.kind !== 'file') return;
  if (!allowed) {
    throw new AppError(
      'invalid_body',
      `No OS keychain holds this data dir's secrets (they are in the data dir's secrets file), so the ${accounts.provider} login is not stored. ` +
        `To keep it in that file encrypted, start the server with ${accounts.passphraseEnv} set to a passphrase and allow file storage.`,
      { field: 'allow_file_storage' },
    );
  }
  if (!passphrase) {
    throw new AppError(
      'invalid_body',
      `No OS keychain holds this data dir's secrets, and ${accounts.passphraseEnv} is not set: the ${accounts.provider} login kept in the data dir's secrets file is encrypted with it. Set it and restart the server.`,
      { field: 'allow_file_storage' },
    );
  }
}

function allowFileStorage(body: unknown): boolean {
  if (body === undefined) return false;
  const fields = adminBody(body, ['allow_file_storage']);
  const value = fields.allow_file_storage ?? false;
  if (typeof value !== 'boolean') {
    throw new AppError('invalid_body', '"allow_file_storage" must be true or false.', {
      field: 'allow_file_storage',
    });
  }
  return value;
}

export function mountAdminAccountRoutes(
  routes: RouteTable,
  deps: Pick<AppDeps, 'secrets' | 'sourceOptions'>,
  logins: AccountLogins,
): void {
  const secrets = () => deps.secrets;
  // The server's configuration (config.ts) carries the passphrase; the page never does.
  const passphraseOf = (accounts: KindAccounts) => accounts.passphrase(deps.sourceOptions);

  routes.get('/admin/accounts', 'admin', (_req, res) => {
    const withAccounts = kindNames().filter((name) => sourceKind(name).accounts);
    res.json({
      data: withAccounts.map((name) =>
        accountsJson(name, accountsOf(name), secrets(), passphraseOf(accountsOf(name))),
      ),
    });
  });

  routes.post('/admin/accounts/:kind/logins', 'admin', async (req, res) => {
    const kind = String(req.params.kind);
    const accounts = accountsOf(kind);
    const allowed = allowFileStorage(req.body);
    const store = secrets();
    checkFileStorage(accounts, store, allowed, passphraseOf(accounts));
    const login = await logins.start(kind, (show, signal) =>
      accounts.login({
        secrets: store,
        allowFileStorage: allowed,
        // Checked above: set whenever the login goes into the secrets file.
        passphrase: async () => passphraseOf(accounts) ?? '',
        showConsentUrl: show,
        sources: deps.sourceOptions,
        signal,
      }),
    );
    res.status(202).json(login);
  });

  routes.get('/admin/accounts/:kind/logins/:login', 'admin', (req, res) => {
    const kind = String(req.params.kind);
    accountsOf(kind);
    res.json(logins.get(kind, String(req.params.login)));
  });

  routes.delete('/admin/accounts/:kind/:account', 'admin', async (req, res) => {
    const accounts = accountsOf(String(req.params.kind));
    res.json(
      await accounts.logout({
        secrets: secrets(),
        account: String(req.params.account),
        sources: deps.sourceOptions,
      }),
    );
  });
}
