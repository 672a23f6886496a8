/**
 * Google OAuth tokens kept in the data dir's secrets provider (the OS keychain, or the 0600 file with the tokens
 * sealed under a passphrase), one secret per account: `google-token:<account>`, the account being the Google
 * address. `google-accounts` lists the accounts and names the default one. Never in SQLite, logs or error
 * messages.
 */
import { createHash } from 'node:crypto';
import { ENV } from '../../config.ts';
import { AppError } from '../../errors.ts';
import { MAX_SECRET_NAME, type SecretsProvider } from '../../secrets/provider.ts';
import { isSealedTokens, openTokens, sealTokens } from './token-crypto.ts';

export interface StoredTokens {
  access_token?: string | null;
  refresh_token?: string | null;
  expiry_date?: number | null;
  scope?: string;
  token_type?: string | null;
}

/** The account used when none is named and nobody has logged in with `sheetport login google`. */
export const DEFAULT_ACCOUNT = 'default';
/** Where the passphrase of sealed tokens comes from for `serve` (and, without a terminal, for the CLI). */
export const PASSPHRASE_ENV = ENV.googlePassphrase;
const ACCOUNTS_SECRET = 'google-accounts';

export interface AccountIndex {
  default: string | null;
  accounts: string[];
}

const TOKEN_PREFIX = 'google-token:';

/**
 * The secret an account's tokens are kept under, a valid secret name for any account (a client names one in
 * `DELETE /admin/accounts/google/{account}`). Secret names allow letters, digits and . _ : @ -, so an address with
 * other characters (a `+`) is spelled with `_`; one too long for a name is kept under its SHA-256 digest.
 */
export function tokenSecretName(account: string): string {
  const plain = account.replace(/[^A-Za-z0-9._:@-]/g, '_');
  if (TOKEN_PREFIX.length + plain.length <= MAX_SECRET_NAME) return `${TOKEN_PREFIX}${plain}`;
  return `${TOKEN_PREFIX}sha256:${createHash('sha256').update(account).digest('hex')}`;
}

export function readAccountIndex(secrets: SecretsProvider | undefined): AccountIndex {
  const raw = secrets?.get(ACCOUNTS_SECRET);
  if (!raw) return { default: null, accounts: [] };
  try {
    const parsed = JSON.parse(raw) as Partial<AccountIndex>;
    const accounts = Array.isArray(parsed.accounts)
      ? parsed.accounts.filter((a) => typeof a === 'string')
      : [];
    return { default: typeof parsed.default === 'string' ? parsed.default : null, accounts };
  } catch {
    return { default: null, accounts: [] };
  }
}

export function writeAccountIndex(secrets: SecretsProvider, index: AccountIndex): void {
  if (index.accounts.length === 0) secrets.delete(ACCOUNTS_SECRET);
  else secrets.set(ACCOUNTS_SECRET, JSON.stringify(index));
}

/** The account a source acts for: the one named, else the default set by the last login, else `default`. */
export function resolveAccount(secrets: SecretsProvider | undefined, named?: string): string {
  return named ?? readAccountIndex(secrets).default ?? DEFAULT_ACCOUNT;
}

function passphraseProblem(message: string): AppError {
  return new AppError('upstream_error', message, { reason: 'google_login_required' });
}

export function loadTokens(
  secrets: SecretsProvider | undefined,
  account: string,
  passphrase: string | undefined,
): StoredTokens | null {
  const raw = secrets?.get(tokenSecretName(account));
  if (!raw) return null;
  let text: string | null = raw;
  if (isSealedTokens(raw)) {
    if (!passphrase) {
      throw passphraseProblem(
        `The Google login is stored encrypted in the secrets file; set ${PASSPHRASE_ENV} to its passphrase.`,
      );
    }
    text = openTokens(raw, passphrase);
    if (text === null) {
      throw passphraseProblem(
        `${PASSPHRASE_ENV} does not open the stored Google login; set the passphrase given at \`sheetport login google\`, or log in again.`,
      );
    }
  }
  try {
    return JSON.parse(text) as StoredTokens;
  } catch {
    return null;
  }
}

export interface SaveOptions {
  /** Seal with (and open the stored login with) this passphrase: GoogleConfig's, config.ts. */
  passphrase?: string | undefined;
  /** Seal even if the stored value is not sealed (a login onto the secrets file); default: keep as stored. */
  seal?: boolean;
}

/** Merge a refresh's answer into what is stored: Google omits the refresh token on refresh, so it is kept. */
export function saveTokens(
  secrets: SecretsProvider,
  account: string,
  fresh: StoredTokens,
  options: SaveOptions = {},
): void {
  const { passphrase } = options;
  const stored = secrets.get(tokenSecretName(account));
  const seal = options.seal ?? (stored !== null && isSealedTokens(stored));
  const before = options.seal !== undefined ? {} : (loadTokens(secrets, account, passphrase) ?? {});
  const merged: StoredTokens = { ...before, ...fresh };
  if (!fresh.refresh_token && before.refresh_token) merged.refresh_token = before.refresh_token;
  const text = JSON.stringify(merged);
  if (seal && !passphrase) throw passphraseProblem(`Encrypting the Google login needs ${PASSPHRASE_ENV}.`);
  secrets.set(tokenSecretName(account), seal && passphrase ? sealTokens(text, passphrase) : text);
}

export function deleteTokens(secrets: SecretsProvider, account: string): boolean {
  return secrets.delete(tokenSecretName(account));
}
