/**
 * `sheetport connect google <id or URL>` as a real child process against the Sheets fake
 * (SHEETPORT_GOOGLE_API_ROOT), with the account's tokens in the data dir's secrets file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecretsProvider } from '../../server/secrets/choose.ts';
import { type AnyJson, cliJson, runCli } from '../helpers/cli.ts';
import { type GoogleAccount, startGoogleAccount, storeLogin } from '../helpers/google.ts';

let account: GoogleAccount;
let tmp: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  account = await startGoogleAccount();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-google-cli-'));
  dataDir = path.join(tmp, 'data');
  env = {
    ...process.env,
    SHEETPORT_SECRETS: 'file',
    SHEETPORT_GOOGLE_API_ROOT: account.fake.url,
    SHEETPORT_DATA_DIR: dataDir,
  };
  delete env.SHEETPORT_DEBUG;
  storeLogin(account.fake, openSecretsProvider(dataDir, { env }));
});
afterAll(async () => {
  await account.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('sheetport connect google', () => {
  it('connects a spreadsheet by URL under its Google id, with its tabs and sheet ids', async () => {
    const id = await account.createSpreadsheet('Budget', ['Item', 'Cost'], [['Tea', 3]]);
    const url = `https://docs.google.com/spreadsheets/d/${id}/edit#gid=0`;
    const body = await cliJson<AnyJson>(['connect', 'google', url], { env });
    expect(body).toMatchObject({ spreadsheet_id: id, name: 'Budget', location: id, created: true });
    expect(body.sheets[0]).toMatchObject({ name: 'Sheet1', sheet_id: `${id}~0`, row_count: 1 });

    // A bare id, with no kind named, is the same connection.
    const again = await cliJson(['connect', id], { env });
    expect(again).toMatchObject({ spreadsheet_id: id, created: false });
  });

  it('without a stored login says to log in, and registers nothing', async () => {
    const id = await account.createSpreadsheet('Other', ['A'], [['x']]);
    const bare = { ...env, SHEETPORT_DATA_DIR: path.join(tmp, 'fresh') };
    const failed = await runCli(['connect', 'google', id, '--json'], { env: bare });
    expect(failed.code).toBe(1);
    const error = JSON.parse(failed.stderr).error;
    expect(error.code).toBe('upstream_error');
    expect(error.message).toMatch(/sheetport login google/);
    const list = await cliJson(['connections', 'list'], { env: bare });
    expect(list).toEqual([]);
  });
});
