/**
 * Google OAuth tokens kept in the data dir's secrets provider (the OS keychain or the 0600 file), one secret per
 * account: `google-token:<account>`. Never in SQLite, logs or error messages.
 */
import type { SecretsProvider } from '../../secrets/provider.ts';

export interface StoredTokens {
  access_token?: string | null;
  refresh_token?: string | null;
  expiry_date?: number | null;
  scope?: string;
  token_type?: string | null;
}

export const DEFAULT_ACCOUNT = 'default';

export const tokenSecretName = (account: string): string => `google-token:${account}`;

export function loadTokens(secrets: SecretsProvider | undefined, account: string): StoredTokens | null {
  const raw = secrets?.get(tokenSecretName(account));
  if (!raw) return null;
  try {
    return JSON.parse(raw) as StoredTokens;
  } catch {
    return null;
  }
}

/** Merge a refresh's answer into what is stored: Google omits the refresh token on refresh, so it is kept. */
export function saveTokens(secrets: SecretsProvider, account: string, fresh: StoredTokens): void {
  const before = loadTokens(secrets, account) ?? {};
  const merged: StoredTokens = { ...before, ...fresh };
  if (!fresh.refresh_token && before.refresh_token) merged.refresh_token = before.refresh_token;
  secrets.set(tokenSecretName(account), JSON.stringify(merged));
}
