/**
 * Google accounts of a data dir: log in (the loopback flow, then the tokens into the secrets provider and the
 * account made the default), list, and log out (revoke the grant at Google, then forget the tokens).
 * Where the data dir has no OS keychain (its secrets are the 0600 file), a login is refused unless the user
 * opts into the file, and then the tokens are sealed with a passphrase (token-crypto.ts).
 */
import { AppError } from '../../errors.ts';
import type { AccountLogin, AccountLogout, KindAccounts, LoginOutcome, LogoutOutcome } from '../kind.ts';
import { googleSettings, oauthClient } from './client.ts';
import { classify } from './errors.ts';
import { loopbackLogin } from './oauth-login.ts';
import {
  deleteTokens,
  loadTokens,
  PASSPHRASE_ENV,
  readAccountIndex,
  type StoredTokens,
  saveTokens,
  tokenSecretName,
  writeAccountIndex,
} from './tokens.ts';

const MIN_PASSPHRASE = 8;

async function login(request: AccountLogin): Promise<LoginOutcome> {
  const { secrets } = request;
  const inFile = secrets.kind === 'file';
  if (inFile && !request.allowFileStorage) {
    throw new AppError(
      'invalid_parameter',
      `No OS keychain holds this data dir's secrets (they are in the data dir's secrets file), so the Google login is not stored. ` +
        `To keep it in that file encrypted with a passphrase, run again with --allow-file-storage; ` +
        `the passphrase comes from ${PASSPHRASE_ENV} or is asked for, and \`sheetport serve\` then needs ${PASSPHRASE_ENV}.`,
      { parameter: 'allow-file-storage' },
    );
  }
  // Asked before the browser step, so nobody has to come back to the terminal after approving.
  const passphrase = inFile ? await request.passphrase() : undefined;
  if (inFile && (!passphrase || passphrase.length < MIN_PASSPHRASE)) {
    throw new AppError(
      'invalid_parameter',
      `The passphrase that encrypts the Google login must be at least ${MIN_PASSPHRASE} characters.`,
      { parameter: 'passphrase' },
    );
  }
  const { account, tokens } = await loopbackLogin({
    settings: googleSettings(request.sources?.google),
    showConsentUrl: request.showConsentUrl,
    ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
  });
  saveTokens(secrets, account, tokens, { seal: inFile, passphrase });
  const index = readAccountIndex(secrets);
  writeAccountIndex(secrets, {
    default: account,
    accounts: index.accounts.includes(account) ? index.accounts : [...index.accounts, account],
  });
  const storage = inFile ? 'encrypted_file' : secrets.kind === 'database' ? 'database' : 'keychain';
  return { account, storage, where: secrets.where };
}

function list(secrets: AccountLogin['secrets']): { account: string; default: boolean }[] {
  const index = readAccountIndex(secrets);
  return index.accounts.map((account) => ({ account, default: account === index.default }));
}

/** Revoking the refresh token ends the whole grant at Google (every access token with it). */
async function revoke(
  tokens: StoredTokens | null,
  request: AccountLogout,
): Promise<LogoutOutcome['revoked']> {
  const token = tokens?.refresh_token ?? tokens?.access_token;
  if (!token) return 'not_possible';
  try {
    await oauthClient(googleSettings(request.sources?.google)).revokeToken(token);
    return 'revoked';
  } catch (err) {
    // Google answers invalid_token for a grant that is already gone: nothing left to revoke.
    const status = (err as { response?: { status?: number } }).response?.status;
    if (status === 400 || classify(err) === 'login') return 'already_revoked';
    return 'not_possible';
  }
}

async function logout(request: AccountLogout): Promise<LogoutOutcome> {
  const { secrets } = request;
  const index = readAccountIndex(secrets);
  const account = request.account ?? index.default;
  if (!account || (!index.accounts.includes(account) && secrets.get(tokenSecretName(account)) === null)) {
    throw new AppError(
      'not_found',
      account ? `No Google login for ${account}.` : 'No Google account is logged in.',
    );
  }
  let tokens: StoredTokens | null = null;
  try {
    tokens = loadTokens(secrets, account, request.passphrase ?? request.sources?.google?.passphrase);
  } catch {
    // Sealed and no passphrase: the tokens are still forgotten, only the revocation at Google is not possible.
  }
  const revoked = await revoke(tokens, request);
  deleteTokens(secrets, account);
  const accounts = index.accounts.filter((a) => a !== account);
  writeAccountIndex(secrets, {
    default: index.default === account ? (accounts[0] ?? null) : index.default,
    accounts,
  });
  return { account, revoked };
}

export const googleAccounts: KindAccounts = {
  provider: 'Google',
  permissionsUrl: 'https://myaccount.google.com/permissions',
  passphraseEnv: PASSPHRASE_ENV,
  passphrase: (options) => options.google?.passphrase,
  login,
  list,
  logout,
};
