/**
 * The OAuth flow for a desktop app (RFC 8252): a one-use listener on 127.0.0.1 at a random port is the redirect
 * URI; the consent URL carries a PKCE S256 challenge and a random `state`; the code that comes back (with that
 * state, else it is refused) is exchanged for tokens, and Drive's about.get says whose they are.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CodeChallengeMethod, Credentials } from 'google-auth-library';
import { AppError } from '../../errors.ts';
import { http } from '../../lib/node-http.ts';
import type { GoogleSettings } from '../kind.ts';
import { oauthClient } from './client.ts';
import { toAppError } from './errors.ts';
import { googleLibraries } from './libraries.ts';
import type { StoredTokens } from './tokens.ts';

/**
 * `spreadsheets` to read and write the sheets; `drive.metadata.readonly` for the cheap modifiedTime/version check
 * and the account's address. `drive.file` would be narrower, but it only reaches files SheetPort created or the
 * user picked in Google's own picker, so a pasted id or URL could not be connected.
 */
export const GOOGLE_SCOPES = [
  'https://www.googleapis.com/auth/spreadsheets',
  'https://www.googleapis.com/auth/drive.metadata.readonly',
];

/** How long the listener waits for the browser to come back. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;
const CALLBACK_PATH = '/oauth2callback';

export interface LoopbackLoginOptions {
  /** Endpoints and the OAuth client (config.ts). */
  settings: GoogleSettings;
  /** Shows the consent URL: printed, or opened in a browser (the caller decides). */
  showConsentUrl: (url: string) => void;
  timeoutMs?: number;
  /** Ends the wait (and closes the loopback listener) early: the service is stopping. */
  signal?: AbortSignal;
}

export interface LoopbackLoginResult {
  account: string;
  tokens: StoredTokens;
}

function requireClient(settings: GoogleSettings): void {
  if (!settings.clientId || !settings.clientSecret) {
    throw new AppError(
      'invalid_parameter',
      'Set SHEETPORT_GOOGLE_CLIENT_ID and SHEETPORT_GOOGLE_CLIENT_SECRET to a Google OAuth client of type "Desktop app" (see the README).',
      { parameter: 'client_id' },
    );
  }
}

const PAGE = (text: string) => `<!doctype html><meta charset="utf-8"><title>SheetPort</title><p>${text}</p>`;

/**
 * The consent page came back without a code: `access_denied` is the user's Cancel (or Deny); any other word is
 * Google's refusal of the request itself (shown only when it is a plain OAuth error word).
 */
function consentRefused(error: string | null): AppError {
  if (error === 'access_denied') {
    return new AppError(
      'upstream_error',
      'The Google sign-in was cancelled in the browser, so SheetPort has no access; run `sheetport login google` ' +
        'again and choose Allow (or Continue) on the consent page.',
      { reason: 'google_login_required' },
    );
  }
  const word = error && /^[a-z_]{1,40}$/.test(error) ? ` (${error})` : '';
  return new AppError(
    'upstream_error',
    `Google did not grant access${word}; check the OAuth client's settings in the Google Cloud console, ` +
      'then run `sheetport login google` again.',
    { reason: 'google_login_required' },
  );
}

/** Waits for the one redirect that carries our `state`; anything else is answered and ignored or refused. */
function awaitCode(server: Server, state: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const aborted = () =>
      finish(() =>
        reject(
          new AppError('upstream_error', 'The login was stopped; run it again.', {
            reason: 'google_login_required',
          }),
        ),
      );
    const timer = setTimeout(
      () =>
        reject(
          new AppError(
            'upstream_error',
            'No answer from the Google consent page in time; run the login again.',
            { reason: 'google_login_required' },
          ),
        ),
      timeoutMs,
    );
    const finish = (outcome: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
      outcome();
    };
    if (signal?.aborted) return aborted();
    signal?.addEventListener('abort', aborted, { once: true });
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== CALLBACK_PATH) {
        res.writeHead(404).end();
        return;
      }
      const answer = (status: number, text: string) =>
        res
          .writeHead(status, { 'content-type': 'text/html; charset=utf-8', connection: 'close' })
          .end(PAGE(text));
      if (url.searchParams.get('state') !== state) {
        // Not the answer to our request (a forged or stale redirect): refused, and the login keeps waiting.
        answer(400, 'This sign-in answer does not belong to the running login.');
        return;
      }
      const error = url.searchParams.get('error');
      const code = url.searchParams.get('code');
      if (error || !code) {
        answer(400, 'Sign-in was not completed. You can close this tab.');
        finish(() => reject(consentRefused(error)));
        return;
      }
      answer(200, 'SheetPort is signed in to Google. You can close this tab.');
      finish(() => resolve(code));
    });
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** Run the whole flow; resolves with the account's address and its tokens (never printed, never logged). */
export async function loopbackLogin(options: LoopbackLoginOptions): Promise<LoopbackLoginResult> {
  requireClient(options.settings);
  const client = oauthClient(options.settings);
  const server = http.createServer();
  try {
    const port = await listen(server);
    const redirectUri = `http://127.0.0.1:${port}${CALLBACK_PATH}`;
    const verifier = randomBytes(48).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const state = randomBytes(24).toString('base64url');
    const code = awaitCode(server, state, options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS, options.signal);
    options.showConsentUrl(
      client.generateAuthUrl({
        access_type: 'offline',
        // consent: Google sends a refresh token again even if this client was granted before.
        prompt: 'consent',
        scope: GOOGLE_SCOPES,
        state,
        redirect_uri: redirectUri,
        code_challenge: challenge,
        code_challenge_method: 'S256' as CodeChallengeMethod, // the enum's value, without loading the library
      }),
    );
    let tokens: Credentials;
    try {
      ({ tokens } = await client.getToken({
        code: await code,
        codeVerifier: verifier,
        redirect_uri: redirectUri,
      }));
    } catch (err) {
      throw toAppError(err);
    }
    client.setCredentials(tokens);
    const account = await whoIs(client, options.settings);
    return { account, tokens: tokensToStore(tokens) };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

async function whoIs(auth: ReturnType<typeof oauthClient>, settings: GoogleSettings): Promise<string> {
  const apiRoot = settings.apiRoot;
  const drive = googleLibraries().drive({
    version: 'v3',
    auth,
    retry: false,
    ...(apiRoot ? { rootUrl: apiRoot.endsWith('/') ? apiRoot : `${apiRoot}/` } : {}),
  });
  try {
    const { data } = await drive.about.get({ fields: 'user(emailAddress)' });
    const email = data.user?.emailAddress;
    if (!email)
      throw new AppError('upstream_error', 'Google did not say which account signed in.', {
        reason: 'google_error',
      });
    return email;
  } catch (err) {
    throw toAppError(err);
  }
}

function tokensToStore(tokens: Credentials): StoredTokens {
  return {
    access_token: tokens.access_token ?? null,
    refresh_token: tokens.refresh_token ?? null,
    expiry_date: tokens.expiry_date ?? null,
    ...(tokens.scope ? { scope: tokens.scope } : {}),
    token_type: tokens.token_type ?? null,
  };
}
