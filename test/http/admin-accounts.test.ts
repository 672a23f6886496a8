/**
 * `/admin/accounts`: the dashboard's Google login against the Sheets fake, on a data dir whose secrets are the
 * 0600 file (no OS keychain, as in every test): refused without the opt-in, then the login started over the admin
 * API, its consent URL followed as a browser would (the fake approves a plain GET and redirects to the server's
 * loopback listener), the tokens sealed with SHEETPORT_GOOGLE_PASSPHRASE, a spreadsheet connected with them, and
 * the account logged out. A real server (startServer) configured with the fake's roots and a Desktop-app client.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../server/index.ts';
import { saveTokens, writeAccountIndex } from '../../server/sources/google/tokens.ts';
import { googleConfig } from '../helpers/config.ts';
import { desktopLogin, type GoogleAccount, startGoogleAccount } from '../helpers/google.ts';
import { type DocNode, expectDocumentedError } from '../helpers/openapi-doc.ts';

let dir: string;
let google: GoogleAccount;
let service: RunningServer;

beforeAll(async () => {
  google = await startGoogleAccount();
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-admin-accounts-'));
  service = await startServer({
    dataDir: path.join(dir, 'data'),
    config: googleConfig(desktopLogin(google.fake.url)),
    port: 0,
    host: '127.0.0.1',
    log: () => {},
  });
});

afterAll(async () => {
  await service?.stop();
  await google?.close();
  await rm(dir, { recursive: true, force: true });
});

type Node = DocNode;

/** The refusal's status and code are documented for the operation, and each member of its error is declared. */
async function expectDocumented(res: Answer, method: string, template: string): Promise<Node> {
  const { error } = await res.json();
  expectDocumentedError(error, res.status, method, template);
  return error;
}

const LOGINS = '/admin/accounts/{kind}/logins';

/** Answers whose JSON is walked by the assertions. */
type Answer = Omit<Response, 'json'> & { json(): Promise<Node> };

function admin(
  pathname: string,
  init: { method?: string; body?: unknown } = {},
  server: RunningServer = service,
): Promise<Answer> {
  return fetch(`${server.url}${pathname}`, {
    method: init.method ?? 'GET',
    headers: {
      Authorization: `Bearer ${server.adminToken}`,
      ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
}

describe('Google logins over the admin API', () => {
  it('lists the kinds that log in, with where a login would be kept', async () => {
    const res = await admin('/admin/accounts');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data).toEqual([
      expect.objectContaining({
        kind: 'google',
        provider: 'Google',
        accounts: [],
        storage: 'file',
        passphrase_env: 'SHEETPORT_GOOGLE_PASSPHRASE',
        passphrase_set: true,
      }),
    ]);
  });

  it('refuses to keep the login in the secrets file unless asked to, saying why', async () => {
    const res = await admin('/admin/accounts/google/logins', { method: 'POST' });
    expect(res.status).toBe(400);
    const error = await expectDocumented(res, 'post', LOGINS);
    expect(error).toMatchObject({ code: 'invalid_body', field: 'allow_file_storage' });
    expect(error.message).toMatch(/No OS keychain/);
    // Where the data dir is stays the server's own business.
    expect(error.message).toContain("the data dir's secrets file");
    expect(error.message).not.toContain(dir);
    expect(error.message).not.toContain('secrets.json');
  });

  it('without an OAuth client configured, says which variables to set', async () => {
    const { clientId: _unset, ...withoutClient } = desktopLogin(google.fake.url);
    const bare = await startServer({
      dataDir: path.join(dir, 'no-client'),
      config: googleConfig({}, { google: withoutClient }),
      port: 0,
      host: '127.0.0.1',
      log: () => {},
    });
    try {
      const res = await admin(
        '/admin/accounts/google/logins',
        { method: 'POST', body: { allow_file_storage: true } },
        bare,
      );
      expect(res.status).toBe(400);
      const error = await expectDocumented(res, 'post', LOGINS);
      expect(error.message).toMatch(/SHEETPORT_GOOGLE_CLIENT_ID and SHEETPORT_GOOGLE_CLIENT_SECRET/);
    } finally {
      await bare.stop();
    }
  });

  it('refuses a kind without accounts and an unknown login', async () => {
    const noAccounts = await admin('/admin/accounts/workbook/logins', { method: 'POST' });
    expect(noAccounts.status).toBe(400);
    expect(await expectDocumented(noAccounts, 'post', LOGINS)).toMatchObject({ parameter: 'kind' });
    const unknown = await admin('/admin/accounts/google/logins/login_nope');
    expect(unknown.status).toBe(404);
    await expectDocumented(unknown, 'get', `${LOGINS}/{login}`);
  });

  it('answers 404 for an account no login has, however long or odd its name; a long one logs out', async () => {
    const odd = [
      'a'.repeat(300),
      `${'x'.repeat(200)}+tag@example.com`,
      'a'.repeat(5_000),
      '../secrets',
      'a b',
      '\u202e',
    ];
    for (const account of odd) {
      const res = await admin(`/admin/accounts/google/${encodeURIComponent(account)}`, { method: 'DELETE' });
      expect(res.status, account.slice(0, 20)).toBe(404);
      const error = await expectDocumented(res, 'delete', '/admin/accounts/{kind}/{account}');
      expect(error.code).toBe('not_found');
    }
    // An address too long for a secret name of its own (Google allows 254 characters) is kept under its digest.
    const long = `${'l'.repeat(230)}@example.com`;
    saveTokens(service.context.secrets, long, { access_token: 'ya29.gone', refresh_token: '1//gone' });
    writeAccountIndex(service.context.secrets, { default: null, accounts: [long] });
    const listed = await (await admin('/admin/accounts')).json();
    expect(listed.data[0].accounts).toEqual([{ account: long, default: false }]);
    const out = await admin(`/admin/accounts/google/${encodeURIComponent(long)}`, { method: 'DELETE' });
    expect(out.status).toBe(200);
    expect((await out.json()).account).toBe(long);
    expect((await (await admin('/admin/accounts')).json()).data[0].accounts).toEqual([]);
    expect(readFileSync(path.join(dir, 'data', 'secrets.json'), 'utf8')).not.toContain('ya29.gone');
  });

  it('logs in through the consent URL, stores the tokens sealed, connects, and logs out', async () => {
    const start = await admin('/admin/accounts/google/logins', {
      method: 'POST',
      body: { allow_file_storage: true },
    });
    expect(start.status).toBe(202);
    const login = await start.json();
    expect(login).toMatchObject({ kind: 'google', state: 'pending', account: null });
    // A second click while it is pending answers the same login: one loopback listener, not two.
    const again = await (
      await admin('/admin/accounts/google/logins', { method: 'POST', body: { allow_file_storage: true } })
    ).json();
    expect(again.login_id).toBe(login.login_id);

    expect((await fetch(login.consent_url)).status).toBe(200);
    await expect
      .poll(async () => (await (await admin(`/admin/accounts/google/logins/${login.login_id}`)).json()).state)
      .toBe('succeeded');
    const done = await (await admin(`/admin/accounts/google/logins/${login.login_id}`)).json();
    expect(done).toMatchObject({ account: 'fake.user@example.com', storage: 'encrypted_file', error: null });
    const file = readFileSync(path.join(dir, 'data', 'secrets.json'), 'utf8');
    expect(file).toMatch(/spg1:/);
    expect(file).not.toMatch(/refresh_token|ya29\./);

    const listed = await (await admin('/admin/accounts')).json();
    expect(listed.data[0].accounts).toEqual([{ account: 'fake.user@example.com', default: true }]);

    const id = await google.createSpreadsheet('Trips', ['City', 'Days'], [['Oslo', 3]]);
    const connected = await admin('/admin/connections', {
      method: 'POST',
      body: { location: id, kind: 'google' },
    });
    expect(connected.status).toBe(201);
    expect(await connected.json()).toMatchObject({ name: 'Trips', source: 'google' });

    const out = await admin('/admin/accounts/google/fake.user%40example.com', { method: 'DELETE' });
    expect(out.status).toBe(200);
    expect(await out.json()).toEqual({ account: 'fake.user@example.com', revoked: 'revoked' });
    expect((await (await admin('/admin/accounts')).json()).data[0].accounts).toEqual([]);
    const gone = await admin('/admin/accounts/google/fake.user%40example.com', { method: 'DELETE' });
    expect(gone.status).toBe(404);
    await expectDocumented(gone, 'delete', '/admin/accounts/{kind}/{account}');
  });

  it('a login cancelled on the consent page fails with what to do, as the dashboard shows it', async () => {
    google.fake.oauth.refuseNextConsent();
    const start = await admin('/admin/accounts/google/logins', {
      method: 'POST',
      body: { allow_file_storage: true },
    });
    expect(start.status).toBe(202);
    const login = await start.json();
    // The browser follows Google's redirect back to the loopback listener, which says the sign-in did not finish.
    const back = await fetch(login.consent_url);
    expect(back.status).toBe(400);
    expect(await back.text()).toMatch(/Sign-in was not completed/);
    await expect
      .poll(async () => (await (await admin(`/admin/accounts/google/logins/${login.login_id}`)).json()).state)
      .toBe('failed');
    const failed = await (await admin(`/admin/accounts/google/logins/${login.login_id}`)).json();
    expect(failed).toMatchObject({ account: null, storage: null });
    expect(failed.error).toMatchObject({ code: 'upstream_error', reason: 'google_login_required' });
    expect(failed.error.message).toMatch(/cancelled in the browser/);
    expect(failed.error.message).toMatch(/run `sheetport login google` again and choose Allow/);
    // Nothing was stored: no account was added.
    expect((await (await admin('/admin/accounts')).json()).data[0].accounts).toEqual([]);
  });

  it("never shows the data dir's path, even in a message that quotes a file there", async () => {
    const file = path.join(dir, 'data', 'secrets.json');
    const kept = readFileSync(file, 'utf8');
    writeFileSync(file, '{ not json');
    try {
      const res = await admin('/admin/accounts');
      expect(res.status).toBe(500);
      const { error } = await res.json();
      expect(error.code).toBe('internal_error');
      expect(error.message).toContain('The secrets file <data dir>/secrets.json is not valid');
      expect(JSON.stringify(error)).not.toContain(path.join(dir, 'data'));
    } finally {
      writeFileSync(file, kept);
    }
    expect((await admin('/admin/accounts')).status).toBe(200);
  });

  it('a login still waiting for its browser closes its loopback listener when the server stops', async () => {
    const own = await startServer({
      dataDir: path.join(dir, 'stopping'),
      config: googleConfig(desktopLogin(google.fake.url)),
      port: 0,
      host: '127.0.0.1',
      log: () => {},
    });
    const start = await fetch(`${own.url}/admin/accounts/google/logins`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${own.adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ allow_file_storage: true }),
    });
    expect(start.status).toBe(202);
    const { consent_url: consentUrl } = (await start.json()) as { consent_url: string };
    const redirect = new URL(new URL(consentUrl).searchParams.get('redirect_uri')!);
    // Listening while the login waits (any path other than the callback is a 404 from it) ...
    expect((await fetch(new URL('/', redirect))).status).toBe(404);
    await own.stop();
    // ... and gone once the server has stopped, not five minutes later.
    await expect(fetch(new URL('/', redirect))).rejects.toThrow();
  });
});
