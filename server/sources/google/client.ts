/**
 * Google's own clients (Sheets v4, Drive v3, OAuth2) pointed at the configured endpoints: Google's by default,
 * the fake in tests (GoogleConfig's apiRoot / oauthRoot, config.ts). Their built-in retries are off:
 * retry.ts decides what may be retried, since a retried append could land twice.
 */
import type { drive as driveApi } from '@googleapis/drive';
import type { sheets as sheetsApi } from '@googleapis/sheets';
import type { OAuth2Client } from 'google-auth-library';
import type { GoogleSettings, SourceOptions } from '../kind.ts';
import { loginRequired } from './errors.ts';
import { googleLibraries } from './libraries.ts';
import { loadTokens, resolveAccount, saveTokens } from './tokens.ts';

export const DEFAULT_TIMEOUT_MS = 10_000;
const GOOGLE_AUTH_URL = 'https://accounts.google.com/o/oauth2/v2/auth';
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const GOOGLE_REVOKE_URL = 'https://oauth2.googleapis.com/revoke';

export interface GoogleClients {
  sheets: ReturnType<typeof sheetsApi>;
  drive: ReturnType<typeof driveApi>;
  auth: OAuth2Client;
  /** The account they act for (the budget is kept per account). */
  account: string;
}

const withSlash = (url: string): string => (url.endsWith('/') ? url : `${url}/`);
function withoutSlash(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}

/** The settings with the OAuth root filled in: the fake serves OAuth on the API's port, so an API root alone
 * points OAuth there too. */
export function googleSettings(settings: GoogleSettings = {}): GoogleSettings {
  const oauthRoot = settings.oauthRoot ?? settings.apiRoot;
  return { ...settings, ...(oauthRoot ? { oauthRoot } : {}) };
}

/** An OAuth2 client for the configured endpoints and OAuth client (id and secret). */
export function oauthClient(settings: GoogleSettings): OAuth2Client {
  const root = settings.oauthRoot ? withoutSlash(settings.oauthRoot) : undefined;
  const { OAuth2Client } = googleLibraries();
  return new OAuth2Client({
    // A 401 before the stored expiry (a grant cut short, a skewed clock) refreshes once instead of failing.
    forceRefreshOnFailure: true,
    ...(settings.clientId ? { clientId: settings.clientId } : {}),
    ...(settings.clientSecret ? { clientSecret: settings.clientSecret } : {}),
    endpoints: {
      oauth2AuthBaseUrl: root ? `${root}/o/oauth2/v2/auth` : GOOGLE_AUTH_URL,
      oauth2TokenUrl: root ? `${root}/token` : GOOGLE_TOKEN_URL,
      oauth2RevokeUrl: root ? `${root}/revoke` : GOOGLE_REVOKE_URL,
    },
  });
}

/** Clients acting for the stored login of `settings.account`; no stored login is google_login_required. */
export function googleClients(options: SourceOptions): GoogleClients {
  const settings = googleSettings(options.google);
  const account = resolveAccount(options.secrets, settings.account);
  const tokens = loadTokens(options.secrets, account, settings.passphrase);
  if (!tokens || (!tokens.access_token && !tokens.refresh_token)) throw loginRequired();
  const auth = oauthClient(settings);
  auth.setCredentials(tokens);
  const secrets = options.secrets;
  // A refresh's new access token is kept; the refresh token is never dropped (saveTokens merges).
  if (secrets) {
    auth.on('tokens', (fresh) => {
      try {
        saveTokens(secrets, account, fresh, { passphrase: settings.passphrase });
      } catch (err) {
        // The call goes on with the new token in memory; the next start refreshes again.
        options.log?.('Keeping a refreshed Google token failed', err);
      }
    });
  }
  const common = {
    auth,
    retry: false,
    timeout: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(settings.apiRoot ? { rootUrl: withSlash(settings.apiRoot) } : {}),
  };
  const { sheets, drive } = googleLibraries();
  return {
    sheets: sheets({ version: 'v4', ...common }),
    drive: drive({ version: 'v3', ...common }),
    auth,
    account,
  };
}
