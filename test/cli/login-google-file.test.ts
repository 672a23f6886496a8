/**
 * `sheetport login google` where the data dir has no OS keychain (SHEETPORT_SECRETS=file): refused without the
 * opt-in; with `--allow-file-storage` the tokens are sealed with the passphrase (no token readable in the file),
 * and commands that use the login need SHEETPORT_GOOGLE_PASSPHRASE. Also: a redirect with a wrong `state` is
 * refused and the login goes on waiting for the right one. Real CLI processes against the Google fake.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGoogle, startFakeGoogle } from '../fakes/google-sheets/server.ts';
import { type CliRun, runCli } from '../helpers/cli.ts';

let fake: FakeGoogle;
let tmp: string;
let spreadsheetId: string;

beforeAll(async () => {
  fake = await startFakeGoogle();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-login-file-'));
  const { access_token } = fake.oauth.issue();
  const headers = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
  const file = (await (
    await fetch(`${fake.url}/drive/v3/files`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Stock', mimeType: 'application/vnd.google-apps.spreadsheet' }),
    })
  ).json()) as { id: string };
  spreadsheetId = file.id;
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function envFor(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SHEETPORT_SECRETS: 'file',
    SHEETPORT_DATA_DIR: dataDir,
    SHEETPORT_GOOGLE_API_ROOT: fake.url,
    SHEETPORT_GOOGLE_CLIENT_ID: 'desktop-client',
    SHEETPORT_GOOGLE_CLIENT_SECRET: 'desktop-secret',
    ...extra,
  };
  delete env.SHEETPORT_DEBUG;
  if (!extra.SHEETPORT_GOOGLE_PASSPHRASE) delete env.SHEETPORT_GOOGLE_PASSPHRASE;
  return env;
}

/** Run the CLI; `onUrl` gets the consent URL once it is printed. */
function cli(
  args: string[],
  env: NodeJS.ProcessEnv,
  onUrl?: (url: string) => Promise<void>,
): Promise<CliRun> {
  // A passphrase envFor left out stays out, whatever the shell running the tests has.
  return runCli(args, { env: { SHEETPORT_GOOGLE_PASSPHRASE: undefined, ...env }, onUrl, timeoutMs: 60_000 });
}

const secretsFile = (dataDir: string) => path.join(dataDir, 'secrets.json');

describe('sheetport login google without an OS keychain', () => {
  it('refuses to store the login without --allow-file-storage, saying why', async () => {
    const dataDir = path.join(tmp, 'refused');
    const run = await cli(['login', 'google', '--no-browser'], envFor(dataDir), async () => {
      throw new Error('no consent URL should be shown');
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/No OS keychain/);
    expect(run.stderr).toMatch(/--allow-file-storage/);
    const stored = fs.existsSync(secretsFile(dataDir)) ? fs.readFileSync(secretsFile(dataDir), 'utf8') : '';
    expect(stored).not.toMatch(/google-token/);
  });

  it('with the opt-in, seals the tokens with the passphrase; using them needs SHEETPORT_GOOGLE_PASSPHRASE', async () => {
    const dataDir = path.join(tmp, 'sealed');
    const passphrase = 'a long passphrase';
    let forged = 0;
    const login = await cli(
      ['login', 'google', '--no-browser', '--allow-file-storage'],
      envFor(dataDir, { SHEETPORT_GOOGLE_PASSPHRASE: passphrase }),
      async (url) => {
        // A redirect that does not carry the login's state is refused; the login keeps waiting.
        const redirect = new URL(new URL(url).searchParams.get('redirect_uri') ?? '');
        redirect.searchParams.set('code', 'forged');
        redirect.searchParams.set('state', 'not-the-state');
        forged = (await fetch(redirect)).status;
        await fetch(url);
      },
    );
    expect(forged).toBe(400);
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(
      /Logged in as fake\.user@example\.com .*secrets\.json, encrypted with your passphrase/,
    );

    const file = JSON.parse(fs.readFileSync(secretsFile(dataDir), 'utf8'));
    const sealed = file.secrets['google-token:fake.user@example.com'];
    expect(sealed).toMatch(/^spg1:/);
    const text = fs.readFileSync(secretsFile(dataDir), 'utf8');
    expect(text).not.toMatch(/ya29\.|1\/\/|access_token|refresh_token/);

    const connect = ['connect', 'google', spreadsheetId, '--json'];
    const without = await cli(connect, envFor(dataDir));
    expect(without.code).toBe(1);
    expect(JSON.parse(without.stderr).error).toMatchObject({ code: 'upstream_error' });
    expect(without.stderr).toMatch(/SHEETPORT_GOOGLE_PASSPHRASE/);
    const wrong = await cli(connect, envFor(dataDir, { SHEETPORT_GOOGLE_PASSPHRASE: 'not the one at all' }));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/does not open/);
    const right = await cli(connect, envFor(dataDir, { SHEETPORT_GOOGLE_PASSPHRASE: passphrase }));
    expect(right.code).toBe(0);
    expect(JSON.parse(right.stdout)).toMatchObject({ spreadsheet_id: spreadsheetId, name: 'Stock' });
  }, 60_000);
});
