/**
 * `sheetport connect google <id or URL>` as a real child process against the Sheets fake
 * (SHEETPORT_GOOGLE_API_ROOT), with the account's tokens in the data dir's secrets file.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecretsProvider } from '../../server/secrets/choose.ts';
import { type GoogleAccount, startGoogleAccount, storeLogin } from '../helpers/google.ts';

const BIN = fileURLToPath(new URL('../../bin/sheetport.js', import.meta.url));
const run = promisify(execFile);

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
    const { stdout } = await run(process.execPath, [BIN, 'connect', 'google', url, '--json'], { env });
    const body = JSON.parse(stdout);
    expect(body).toMatchObject({ spreadsheet_id: id, name: 'Budget', location: id, created: true });
    expect(body.sheets[0]).toMatchObject({ name: 'Sheet1', sheet_id: `${id}~0`, row_count: 1 });

    // A bare id, with no kind named, is the same connection.
    const again = JSON.parse((await run(process.execPath, [BIN, 'connect', id, '--json'], { env })).stdout);
    expect(again).toMatchObject({ spreadsheet_id: id, created: false });
  });

  it('without a stored login says to log in, and registers nothing', async () => {
    const id = await account.createSpreadsheet('Other', ['A'], [['x']]);
    const bare = { ...env, SHEETPORT_DATA_DIR: path.join(tmp, 'fresh') };
    const failed = await run(process.execPath, [BIN, 'connect', 'google', id, '--json'], { env: bare }).catch(
      (err: { code: number; stderr: string }) => err,
    );
    expect('code' in failed && failed.code).toBe(1);
    const error = JSON.parse((failed as { stderr: string }).stderr).error;
    expect(error.code).toBe('upstream_error');
    expect(error.message).toMatch(/sheetport login google/);
    const list = JSON.parse(
      (await run(process.execPath, [BIN, 'connections', 'list', '--json'], { env: bare })).stdout,
    );
    expect(list).toEqual([]);
  });
});
