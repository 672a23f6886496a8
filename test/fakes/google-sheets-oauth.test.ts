// The fake's OAuth endpoints driven by google-auth-library's OAuth2Client, as a desktop app
// would: consent redirect to a loopback listener, PKCE code exchange, refresh, revoke.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sheets as sheetsApi } from '@googleapis/sheets';
import { CodeChallengeMethod, OAuth2Client } from 'google-auth-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGoogle, startFakeGoogle } from './google-sheets/server.ts';

let fake: FakeGoogle;
let loopback: Server;
let redirectUri: string;
const received: URL[] = [];

beforeAll(async () => {
  fake = await startFakeGoogle({ strictAuth: true });
  loopback = createServer((req, res) => {
    received.push(new URL(req.url ?? '/', redirectUri));
    res.end('signed in');
  });
  await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
  redirectUri = `http://127.0.0.1:${(loopback.address() as AddressInfo).port}/oauth2callback`;
});
afterAll(async () => {
  await fake.close();
  await new Promise((resolve) => loopback.close(resolve));
});

function client(): OAuth2Client {
  return new OAuth2Client({
    clientId: 'desktop-client',
    clientSecret: 'not-a-secret',
    redirectUri,
    endpoints: {
      oauth2AuthBaseUrl: `${fake.url}/o/oauth2/v2/auth`,
      oauth2TokenUrl: `${fake.url}/token`,
      oauth2RevokeUrl: `${fake.url}/revoke`,
    },
  });
}

/** Opens the consent URL like a browser would and returns the code the loopback received. */
async function consent(auth: OAuth2Client, codeChallenge: string, state: string): Promise<string> {
  const url = auth.generateAuthUrl({
    access_type: 'offline',
    prompt: 'consent',
    scope: ['https://www.googleapis.com/auth/spreadsheets'],
    state,
    code_challenge_method: CodeChallengeMethod.S256,
    code_challenge: codeChallenge,
  });
  const consentPage = await fetch(url, { redirect: 'manual' });
  expect(consentPage.status).toBe(302);
  const location = consentPage.headers.get('location') as string;
  expect(location.startsWith(redirectUri)).toBe(true);
  await fetch(location);
  const callback = received.at(-1) as URL;
  expect(callback.searchParams.get('state')).toBe(state);
  return callback.searchParams.get('code') as string;
}

describe('Google fake: OAuth desktop flow', () => {
  it('exchanges a PKCE code for tokens that open the Sheets API, refreshes and keeps the refresh token', async () => {
    const auth = client();
    const { codeVerifier, codeChallenge } = await auth.generateCodeVerifierAsync();
    const code = await consent(auth, codeChallenge as string, 'state-1');
    const { tokens } = await auth.getToken({ code, codeVerifier });
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.token_type).toBe('Bearer');
    auth.setCredentials(tokens);

    const sheets = sheetsApi({ version: 'v4', auth, rootUrl: `${fake.url}/` });
    const created = await sheets.spreadsheets.create({ requestBody: { properties: { title: 'Mine' } } });
    expect(created.data.properties?.title).toBe('Mine');

    // An expired access token is refreshed by the client; the refresh token keeps working.
    auth.setCredentials({
      refresh_token: tokens.refresh_token,
      access_token: 'stale',
      expiry_date: Date.now() - 1000,
    });
    const again = await sheets.spreadsheets.get({ spreadsheetId: created.data.spreadsheetId as string });
    expect(again.status).toBe(200);
    const refreshed = await auth.refreshAccessToken();
    expect(refreshed.credentials.access_token).toBeTruthy();
    expect(refreshed.credentials.refresh_token).toBe(tokens.refresh_token);
  });

  it('rejects a wrong code verifier and a reused code with invalid_grant', async () => {
    const auth = client();
    const { codeVerifier, codeChallenge } = await auth.generateCodeVerifierAsync();
    const code = await consent(auth, codeChallenge as string, 'state-2');
    const wrong = await auth.getToken({ code, codeVerifier: `${codeVerifier}x` }).catch((e) => e.response);
    expect(wrong.status).toBe(400);
    expect(wrong.data.error).toBe('invalid_grant');
    const reused = await auth.getToken({ code, codeVerifier }).catch((e) => e.response);
    expect(reused.data.error).toBe('invalid_grant');
  });

  it('revoking the grant makes API calls 401 and refresh answer invalid_grant', async () => {
    const auth = client();
    const { codeVerifier, codeChallenge } = await auth.generateCodeVerifierAsync();
    const code = await consent(auth, codeChallenge as string, 'state-3');
    const { tokens } = await auth.getToken({ code, codeVerifier });
    const accessToken = tokens.access_token as string;
    await auth.revokeToken(tokens.refresh_token as string);

    const api = await fetch(`${fake.url}/v4/spreadsheets/anything`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(api.status).toBe(401);
    expect(((await api.json()) as { error: unknown }).error).toMatchObject({
      code: 401,
      status: 'UNAUTHENTICATED',
    });
    auth.setCredentials({ refresh_token: tokens.refresh_token });
    const refresh = await auth.refreshAccessToken().catch((e) => e.response);
    expect(refresh.status).toBe(400);
    expect(refresh.data).toEqual({
      error: 'invalid_grant',
      error_description: 'Token has been expired or revoked.',
    });
  });

  it('in strict mode refuses tokens it never issued', async () => {
    const res = await fetch(`${fake.url}/v4/spreadsheets/x`, {
      headers: { authorization: 'Bearer made-up' },
    });
    expect(res.status).toBe(401);
  });
});
