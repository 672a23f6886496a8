/**
 * `sheetport login google --no-browser` completed as a user would: the CLI prints the consent URL, the URL is
 * followed (the Google fake approves a plain GET at once and redirects to the CLI's loopback listener), and the
 * tokens land in a real Secret Service keychain (GNOME Keyring under `dbus-run-session`, as in
 * test/secrets/keychain.test.ts; `secret-tool` checks it independently). Then an expired access token is
 * refreshed by a `connect` (the refresh token survives), and `accounts logout` revokes the grant and removes both
 * entries. Everything runs in one child process inside the private session bus, the fake included.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../helpers/cli.ts', import.meta.url));
const FAKE = fileURLToPath(new URL('../fakes/google-sheets/server.ts', import.meta.url));

let root: string;
let home: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-login-'));
  home = path.join(root, 'home');
  fs.mkdirSync(path.join(home, '.cache'), { recursive: true });
  fs.mkdirSync(path.join(home, '.local', 'share'), { recursive: true });
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

// The scenario, run by node inside the session bus. argv: data dir.
const SCENARIO = `
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startFakeGoogle } from ${JSON.stringify(FAKE)};
import { runCli } from ${JSON.stringify(CLI)};
const dataDir = process.argv[1];
let offset = 0;
const fake = await startFakeGoogle({ clock: () => Date.now() + offset });
const env = { ...process.env, SHEETPORT_DATA_DIR: dataDir, SHEETPORT_GOOGLE_API_ROOT: fake.url,
  SHEETPORT_GOOGLE_CLIENT_ID: 'desktop-client', SHEETPORT_GOOGLE_CLIENT_SECRET: 'desktop-secret' };
const cli = (args, onUrl) => runCli(args, { env, onUrl, timeoutMs: 60_000 })
  .then((r) => ({ code: r.code, out: r.stdout, err: r.stderr }));
const lookup = (name) => {
  const id = JSON.parse(readFileSync(dataDir + '/secrets-provider.json', 'utf8')).id;
  try { return execFileSync('secret-tool', ['lookup', 'service', 'SheetPort', 'username', id + '/' + name], { encoding: 'utf8' }); }
  catch { return null; }
};
const result = {};
try {
  // A spreadsheet to connect later, made by another client of the same account.
  const { access_token } = fake.oauth.issue();
  const h = { authorization: 'Bearer ' + access_token, 'content-type': 'application/json' };
  const file = await (await fetch(fake.url + '/drive/v3/files', { method: 'POST', headers: h,
    body: JSON.stringify({ name: 'Trips', mimeType: 'application/vnd.google-apps.spreadsheet' }) })).json();
  await fetch(fake.url + '/v4/spreadsheets/' + file.id + '/values/Sheet1!A1?valueInputOption=RAW', { method: 'PUT',
    headers: h, body: JSON.stringify({ values: [['City'], ['Oslo']] }) });

  let followed = null;
  const login = await cli(['login', 'google', '--no-browser'], (url) => {
    followed = fetch(url).then((r) => r.status);
  });
  result.login = { code: login.code, said: login.out.trim().split('\\n').at(-1), callbackStatus: await followed };
  const afterLogin = JSON.parse(lookup('google-token:fake.user@example.com') ?? 'null');
  result.stored = { refresh: typeof afterLogin?.refresh_token === 'string', access: typeof afterLogin?.access_token === 'string' };
  result.index = JSON.parse(lookup('google-accounts') ?? 'null');
  result.inSecretsFile = (() => { try { return readFileSync(dataDir + '/secrets.json', 'utf8'); } catch { return null; } })();

  // Two hours later the access token has expired at Google; a connect refreshes it.
  offset = 2 * 3600_000;
  const connect = await cli(['connect', 'google', file.id, '--json']);
  result.connect = { code: connect.code, name: connect.code === 0 ? JSON.parse(connect.out).name : connect.err };
  const afterRefresh = JSON.parse(lookup('google-token:fake.user@example.com') ?? 'null');
  result.refresh = { newAccess: afterRefresh.access_token !== afterLogin.access_token,
    sameRefresh: afterRefresh.refresh_token === afterLogin.refresh_token,
    newAccessValid: fake.oauth.check(afterRefresh.access_token) };

  const logout = await cli(['accounts', 'logout', '--json']);
  result.logout = { code: logout.code, body: logout.code === 0 ? JSON.parse(logout.out) : logout.err };
  result.afterLogout = { token: lookup('google-token:fake.user@example.com'), index: lookup('google-accounts'),
    grant: fake.oauth.check(afterRefresh.access_token) };
  const list = await cli(['accounts', 'list', '--json']);
  result.listAfter = JSON.parse(list.out);
} finally {
  await fake.close();
}
console.log(JSON.stringify(result));
`;

describe('sheetport login google with the OS keychain', () => {
  it('logs in by the printed URL, keeps the tokens in the keychain, refreshes, and logs out', () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home,
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
      XDG_RUNTIME_DIR: path.join(home, '.cache'),
    };
    delete env.SHEETPORT_SECRETS;
    delete env.DBUS_SESSION_BUS_ADDRESS;
    delete env.SHEETPORT_DEBUG;
    const run = spawnSync(
      'dbus-run-session',
      [
        '--',
        'sh',
        '-c',
        'printf pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"',
        'sh',
        process.execPath,
        '--input-type=module',
        '-e',
        SCENARIO,
        path.join(root, 'data'),
      ],
      { env, encoding: 'utf8', timeout: 90_000 },
    );
    const line = run.stdout.trim().split('\n').at(-1) ?? '';
    let result: Record<string, unknown>;
    try {
      result = JSON.parse(line);
    } catch {
      throw new Error(`scenario printed no JSON (status ${run.status}):\n${run.stdout}\n${run.stderr}`);
    }
    expect(result).toEqual({
      login: {
        code: 0,
        said: 'Logged in as fake.user@example.com (now the default account); the tokens are in the OS keychain.',
        callbackStatus: 200,
      },
      stored: { refresh: true, access: true },
      index: { default: 'fake.user@example.com', accounts: ['fake.user@example.com'] },
      inSecretsFile: null,
      connect: { code: 0, name: 'Trips' },
      refresh: { newAccess: true, sameRefresh: true, newAccessValid: 'valid' },
      logout: { code: 0, body: { account: 'fake.user@example.com', revoked: 'revoked' } },
      afterLogout: { token: null, index: null, grant: 'invalid' },
      listAfter: [],
    });
  }, 100_000);
});
