// OAuth 2.0 for installed apps, as Google runs it: the consent page approves at once (or, when a test says
// so, is cancelled: `error=access_denied`) and redirects to the loopback redirect_uri with `code` and `state`; /token exchanges the code
// (PKCE S256 checked, client_secret required) and refreshes; /revoke kills the whole grant.
import { createHash, randomBytes } from 'node:crypto';
import { GoogleError } from './errors.ts';
import type { FakeRequest, FakeResponse, Route } from './http-types.ts';
import type { Clock } from './store.ts';

type Grant = { clientId: string; scope: string; refreshToken: string; revoked: boolean };
type PendingCode = {
  grant: Grant;
  redirectUri: string;
  challenge?: string;
  method?: string;
  expiresAt: number;
};

const ACCESS_TOKEN_SECONDS = 3599;

const token = (prefix: string): string => `${prefix}${randomBytes(24).toString('base64url')}`;

const oauthError = (error: string, description: string, status = 400): FakeResponse => ({
  status,
  body: { error, error_description: description },
});

export class OAuthServer {
  private readonly codes = new Map<string, PendingCode>();
  private readonly accessTokens = new Map<string, { grant: Grant; expiresAt: number }>();
  private readonly refreshTokens = new Map<string, Grant>();
  private readonly clock: Clock;
  /** The user's answer on the next consent page, when it is not "Allow". */
  #nextRefusal: string | undefined;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  /** For tests that skip the browser step: a grant with a refresh token and a live access token. */
  issue(
    clientId = 'fake-client',
    scope = 'https://www.googleapis.com/auth/spreadsheets',
  ): {
    access_token: string;
    refresh_token: string;
  } {
    const grant: Grant = { clientId, scope, refreshToken: token('1//'), revoked: false };
    this.refreshTokens.set(grant.refreshToken, grant);
    return { access_token: this.newAccessToken(grant), refresh_token: grant.refreshToken };
  }

  /** The next consent page is cancelled (or "Deny" is clicked): Google redirects with `error=access_denied`. */
  refuseNextConsent(error = 'access_denied'): void {
    this.#nextRefusal = error;
  }

  revoke(anyToken: string): boolean {
    const grant = this.refreshTokens.get(anyToken) ?? this.accessTokens.get(anyToken)?.grant;
    if (!grant) return false;
    grant.revoked = true;
    return true;
  }

  /** unknown: a token this server never issued (allowed unless strict); revoked/expired: 401. */
  check(accessToken: string): 'valid' | 'unknown' | 'invalid' {
    const entry = this.accessTokens.get(accessToken);
    if (!entry) return 'unknown';
    return entry.grant.revoked || entry.expiresAt <= this.clock() ? 'invalid' : 'valid';
  }

  private newAccessToken(grant: Grant): string {
    const access = token('ya29.');
    this.accessTokens.set(access, { grant, expiresAt: this.clock() + ACCESS_TOKEN_SECONDS * 1000 });
    return access;
  }

  authorize(req: FakeRequest): FakeResponse {
    const q = req.query;
    const redirectUri = q.get('redirect_uri') ?? '';
    const clientId = q.get('client_id');
    if (!clientId) return oauthError('invalid_request', 'Missing required parameter: client_id');
    let redirect: URL;
    try {
      redirect = new URL(redirectUri);
    } catch {
      return oauthError('invalid_request', 'Missing required parameter: redirect_uri');
    }
    const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(redirect.hostname);
    if (redirect.protocol !== 'http:' || !loopback) return oauthError('redirect_uri_mismatch', 'Bad Request');
    if (q.get('response_type') !== 'code') return oauthError('unsupported_response_type', 'Bad Request');
    const method = q.get('code_challenge_method') ?? undefined;
    if (method !== undefined && method !== 'S256' && method !== 'plain')
      return oauthError('invalid_request', 'Invalid code_challenge_method');
    const state = q.get('state');
    const refusal = this.#nextRefusal;
    if (refusal !== undefined) {
      this.#nextRefusal = undefined;
      // What Google's consent page does when the user cancels: back to the app with the error and the state.
      redirect.searchParams.set('error', refusal);
      if (state !== null) redirect.searchParams.set('state', state);
      return { status: 302, headers: { location: redirect.toString() } };
    }
    const code = token('4/0');
    const grant: Grant = {
      clientId,
      scope: q.get('scope') ?? '',
      refreshToken: token('1//'),
      revoked: false,
    };
    const pending: PendingCode = { grant, redirectUri, expiresAt: this.clock() + 600_000 };
    const challenge = q.get('code_challenge');
    if (challenge) {
      pending.challenge = challenge;
      pending.method = method ?? 'plain';
    }
    this.codes.set(code, pending);
    redirect.searchParams.set('code', code);
    if (state !== null) redirect.searchParams.set('state', state);
    redirect.searchParams.set('scope', grant.scope);
    return { status: 302, headers: { location: redirect.toString() } };
  }

  exchange(req: FakeRequest): FakeResponse {
    const form = req.body as Record<string, string | undefined>;
    const [basicId, basicSecret] = basicCredentials(req);
    const clientId = form.client_id ?? basicId;
    const clientSecret = form.client_secret ?? basicSecret;
    if (!clientId) return oauthError('invalid_request', 'Could not determine client ID from request.');
    if (!clientSecret) return oauthError('invalid_request', 'client_secret is missing.');
    if (form.grant_type === 'authorization_code') return this.exchangeCode(form, clientId);
    if (form.grant_type === 'refresh_token') return this.refresh(form, clientId);
    return oauthError('unsupported_grant_type', `Invalid grant_type: ${form.grant_type ?? ''}`);
  }

  private exchangeCode(form: Record<string, string | undefined>, clientId: string): FakeResponse {
    const pending = form.code ? this.codes.get(form.code) : undefined;
    if (form.code) this.codes.delete(form.code); // a code is good for one exchange only
    if (!pending || pending.expiresAt <= this.clock() || pending.grant.clientId !== clientId)
      return oauthError('invalid_grant', 'Malformed auth code.');
    if (form.redirect_uri !== pending.redirectUri) return oauthError('redirect_uri_mismatch', 'Bad Request');
    if (pending.challenge) {
      const verifier = form.code_verifier;
      if (!verifier) return oauthError('invalid_grant', 'Missing code verifier.');
      const computed =
        pending.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
      if (computed !== pending.challenge) return oauthError('invalid_grant', 'Invalid code verifier.');
    }
    const grant = pending.grant;
    this.refreshTokens.set(grant.refreshToken, grant);
    return {
      status: 200,
      body: {
        access_token: this.newAccessToken(grant),
        expires_in: ACCESS_TOKEN_SECONDS,
        refresh_token: grant.refreshToken,
        scope: grant.scope,
        token_type: 'Bearer',
      },
    };
  }

  private refresh(form: Record<string, string | undefined>, clientId: string): FakeResponse {
    const grant = form.refresh_token ? this.refreshTokens.get(form.refresh_token) : undefined;
    if (!grant || grant.revoked || grant.clientId !== clientId)
      return oauthError('invalid_grant', 'Token has been expired or revoked.');
    // Google does not rotate refresh tokens: the response carries only a new access token.
    return {
      status: 200,
      body: {
        access_token: this.newAccessToken(grant),
        expires_in: ACCESS_TOKEN_SECONDS,
        scope: grant.scope,
        token_type: 'Bearer',
      },
    };
  }

  revokeRequest(req: FakeRequest): FakeResponse {
    const value = req.query.get('token') ?? (req.body.token as string | undefined);
    if (!value || !this.revoke(value)) return oauthError('invalid_token', 'Token expired or revoked');
    return { status: 200, body: {} };
  }

  routes(): Route[] {
    return [
      {
        method: 'GET',
        pattern: /^\/o\/oauth2\/v2\/auth$/,
        quota: 'none',
        auth: false,
        handle: (r) => this.authorize(r),
      },
      { method: 'POST', pattern: /^\/token$/, quota: 'none', auth: false, handle: (r) => this.exchange(r) },
      {
        method: 'POST',
        pattern: /^\/revoke$/,
        quota: 'none',
        auth: false,
        handle: (r) => this.revokeRequest(r),
      },
    ];
  }
}

function basicCredentials(req: FakeRequest): [string | undefined, string | undefined] {
  const header = req.headers.authorization;
  if (!header?.startsWith('Basic ')) return [undefined, undefined];
  const [id, secret] = Buffer.from(header.slice(6), 'base64').toString().split(':');
  return [id, secret];
}

export const unauthenticated = (): GoogleError =>
  new GoogleError(
    401,
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
  );

/** No Authorization header and no API key: Google answers 403, not 401. */
export const missingCredentials = (): GoogleError =>
  new GoogleError(
    403,
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  );
