/**
 * `sheetport connect google` and `sheetport login google` meeting each failure Google can answer while logging in
 * and connecting, as real CLI processes against the Sheets fake: one line on stderr that says what to do, no stack
 * trace, exit code 1, nothing registered. With --json the line is the error object, reason included.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSecretsProvider } from '../../server/secrets/choose.ts';
import { seedFile } from '../fakes/google-sheets/admin-routes.ts';
import { type CliRun, runCli } from '../helpers/cli.ts';
import { type GoogleAccount, startGoogleAccount, storeLogin } from '../helpers/google.ts';

const PROJECT = '123456789012';

let account: GoogleAccount;
let tmp: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;

/** Run the CLI; `onUrl` gets the consent URL once it is printed. */
function cli(
  args: string[],
  runEnv: NodeJS.ProcessEnv,
  onUrl?: (url: string) => Promise<void>,
): Promise<CliRun> {
  return runCli(args, { env: runEnv, onUrl, timeoutMs: 60_000 });
}

beforeAll(async () => {
  account = await startGoogleAccount();
  account.fake.switches.projectNumber = PROJECT;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-google-failures-'));
  dataDir = path.join(tmp, 'data');
  env = {
    ...process.env,
    SHEETPORT_SECRETS: 'file',
    SHEETPORT_GOOGLE_API_ROOT: account.fake.url,
    SHEETPORT_DATA_DIR: dataDir,
    // The client the fake's tokens were issued to, so a refresh reaches the token endpoint's own answer.
    SHEETPORT_GOOGLE_CLIENT_ID: 'fake-client',
    SHEETPORT_GOOGLE_CLIENT_SECRET: 'fake-secret',
  };
  delete env.SHEETPORT_DEBUG;
  storeLogin(account.fake, openSecretsProvider(dataDir, { env }));
});
afterEach(() => {
  account.fake.switches.quota = undefined;
  account.fake.switches.disabledApis.clear();
});
afterAll(async () => {
  await account.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** `connect` fails with one line naming what to do, and registers nothing. */
async function connectFails(location: string): Promise<string> {
  const run = await cli(['connect', 'google', location], env);
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  expect(run.stderr).not.toMatch(/\n\s+at |Error:|GaxiosError/);
  const list = await cli(['connections', 'list', '--json'], env);
  expect(JSON.parse(list.stdout)).toEqual([]);
  return lines[0] as string;
}

describe('sheetport connect google, when Google refuses', () => {
  it('an unknown id', async () => {
    expect(await connectFails(`1${'Q'.repeat(43)}`)).toBe(
      'error: Google has no spreadsheet with this id (it may have been deleted); check the id or URL.',
    );
  });

  it('a spreadsheet the account may not open', async () => {
    const id = await account.createSpreadsheet('Payroll', ['Name'], [['Ann']]);
    account.fake.store.denied.add(id);
    expect(await connectFails(id)).toBe(
      'error: The signed-in Google account may not open this spreadsheet (or, for a write, edit it): share it ' +
        'with that account in Google Sheets (as an editor, to write), or run `sheetport login google` with an ' +
        'account that can.',
    );
    const json = await cli(['connect', 'google', id, '--json'], env);
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: 'upstream_error', reason: 'google_access_denied', message: expect.any(String) },
    });
  });

  it('a Drive file that is no Google spreadsheet', async () => {
    const { id } = seedFile(account.fake.store, {
      name: 'budget.xlsx',
      mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    });
    expect(await connectFails(id)).toMatch(/not a Google Sheets spreadsheet.*File > Save as Google Sheets/);
  });

  it('the Sheets API not enabled in the OAuth client project', async () => {
    const id = await account.createSpreadsheet('Off', ['Name'], [['Ann']]);
    account.fake.switches.disabledApis.add('sheets');
    expect(await connectFails(id)).toBe(
      "error: The Google Sheets API is not enabled in the Google Cloud project of SheetPort's OAuth client " +
        `(SHEETPORT_GOOGLE_CLIENT_ID): enable it at https://console.developers.google.com/apis/api/sheets.googleapis.com/overview?project=${PROJECT}, ` +
        'wait a few minutes, then try again.',
    );
  });

  it("Google's per-minute quota spent", async () => {
    const id = await account.createSpreadsheet('Busy', ['Name'], [['Ann']]);
    account.fake.switches.quota = { readsPerMinute: 0, writesPerMinute: 60 };
    expect(await connectFails(id)).toMatch(
      /per-minute Sheets quota for this Google account is used up .*Try again after 60 seconds/,
    );
  });

  it('a revoked grant', async () => {
    const id = await account.createSpreadsheet('Revoked', ['Name'], [['Ann']]);
    const secrets = openSecretsProvider(dataDir, { env });
    const stored = JSON.parse(secrets.get('google-token:default') ?? '{}');
    account.fake.oauth.revoke(stored.refresh_token);
    try {
      expect(await connectFails(id)).toMatch(/expired or revoked; run `sheetport login google` again\.$/);
    } finally {
      storeLogin(account.fake, secrets);
    }
  });
});

describe('sheetport connect google, on a spreadsheet connected before whose sharing was revoked', () => {
  it('says to share it or log in with another account, and keeps the connection', async () => {
    const id = await account.createSpreadsheet('Once shared', ['Name'], [['Ann']]);
    expect((await cli(['connect', 'google', id], env)).code).toBe(0);
    account.fake.store.denied.add(id);
    try {
      const run = await cli(['connect', 'google', id, '--json'], env);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      const { error } = JSON.parse(run.stderr);
      expect(error).toMatchObject({ code: 'upstream_error', reason: 'google_access_denied' });
      expect(error.message).toMatch(/share it with that account in Google Sheets/);
      expect(error.message).toMatch(/run `sheetport login google` with an account that can/);
      const list = JSON.parse((await cli(['connections', 'list', '--json'], env)).stdout);
      expect(list.map((c: { spreadsheet_id: string }) => c.spreadsheet_id)).toEqual([id]);
    } finally {
      account.fake.store.denied.delete(id);
      await cli(['connections', 'remove', id], env);
    }
  });
});

describe('sheetport login google, cancelled in the browser', () => {
  it('says the sign-in was cancelled and to run the login again, exits 1, stores nothing', async () => {
    const loginDir = path.join(tmp, 'login');
    const loginEnv = {
      ...env,
      SHEETPORT_DATA_DIR: loginDir,
      SHEETPORT_GOOGLE_CLIENT_ID: 'desktop-client',
      SHEETPORT_GOOGLE_CLIENT_SECRET: 'desktop-secret',
      SHEETPORT_GOOGLE_PASSPHRASE: 'a long passphrase',
    };
    let page = '';
    const run = await cli(
      ['login', 'google', '--no-browser', '--allow-file-storage'],
      loginEnv,
      async (url) => {
        account.fake.oauth.refuseNextConsent();
        page = await (await fetch(url)).text();
      },
    );
    expect(page).toMatch(/Sign-in was not completed/);
    expect(run.code).toBe(1);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toEqual([
      'error: The Google sign-in was cancelled in the browser, so SheetPort has no access; run ' +
        '`sheetport login google` again and choose Allow (or Continue) on the consent page.',
    ]);
    const accounts = await cli(['accounts', 'list', '--json'], loginEnv);
    expect(accounts.code).toBe(0);
    expect(JSON.stringify(JSON.parse(accounts.stdout))).not.toMatch(/fake\.user/);
  });
});
