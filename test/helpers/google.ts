/**
 * A Google account on the Sheets fake, for tests of the google kind: the fake over HTTP, a real secrets file in a
 * temp dir holding the account's tokens, Google's own clients (as another user would edit the sheet), and the
 * SourceOptions that point a google source at all of it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { drive as driveApi } from '@googleapis/drive';
import { sheets as sheetsApi } from '@googleapis/sheets';
import { OAuth2Client } from 'google-auth-library';
import type { GoogleConfig } from '../../server/config.ts';
import { FileSecretsProvider } from '../../server/secrets/file-provider.ts';
import type { SecretsProvider } from '../../server/secrets/provider.ts';
import { saveTokens } from '../../server/sources/google/tokens.ts';
import type { SourceOptions } from '../../server/sources/kind.ts';
import type { CellValue } from '../../server/sources/source.ts';
import { type FakeGoogle, startFakeGoogle } from '../fakes/google-sheets/server.ts';

export interface GoogleAccount {
  fake: FakeGoogle;
  secrets: SecretsProvider;
  /** Google's clients with their own token: another user of the same spreadsheets. */
  sheets: ReturnType<typeof sheetsApi>;
  drive: ReturnType<typeof driveApi>;
  options(extra?: SourceOptions): SourceOptions;
  /** A new spreadsheet whose first tab (Sheet1, gid 0) holds `header` and `rows`. */
  createSpreadsheet(title: string, header: string[], rows: CellValue[][]): Promise<string>;
  /** Replace the first tab's content, as an edit in the browser would. */
  replaceContent(id: string, header: string[], rows: CellValue[][]): Promise<void>;
  close(): Promise<void>;
}

/** Store `fake`'s tokens for the default account in `secrets`. */
export function storeLogin(fake: FakeGoogle, secrets: SecretsProvider): void {
  saveTokens(secrets, 'default', { ...fake.oauth.issue(), expiry_date: Date.now() + 3_600_000 });
}

/**
 * Google's own clients (googleapis) against `fake`, with a token of their own; `retry: false` makes a refused
 * call fail at once instead of being retried.
 */
export function googleClients(
  fake: FakeGoogle,
  options: { retry?: boolean } = {},
): { sheets: ReturnType<typeof sheetsApi>; drive: ReturnType<typeof driveApi> } {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: fake.oauth.issue().access_token, expiry_date: Date.now() + 3_600_000 });
  const common = { auth, rootUrl: `${fake.url}/`, ...options };
  return { sheets: sheetsApi({ version: 'v4', ...common }), drive: driveApi({ version: 'v3', ...common }) };
}

export async function startGoogleAccount(): Promise<GoogleAccount> {
  const fake = await startFakeGoogle();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-google-'));
  const secrets = new FileSecretsProvider(dir);
  storeLogin(fake, secrets);
  const { sheets, drive } = googleClients(fake, { retry: false });
  const write = async (id: string, header: string[], rows: CellValue[][]) => {
    await sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Sheet1!A1',
      valueInputOption: 'RAW',
      requestBody: { values: [header, ...rows] },
    });
  };
  return {
    fake,
    secrets,
    sheets,
    drive,
    options: (extra = {}) => ({
      secrets,
      ...extra,
      google: { apiRoot: fake.url, retryBaseMs: 20, ...extra.google },
    }),
    async createSpreadsheet(title, header, rows) {
      const created = await drive.files.create({
        requestBody: { name: title, mimeType: 'application/vnd.google-apps.spreadsheet' },
      });
      const id = created.data.id as string;
      await write(id, header, rows);
      return id;
    },
    async replaceContent(id, header, rows) {
      await sheets.spreadsheets.values.clear({ spreadsheetId: id, range: 'Sheet1', requestBody: {} });
      await write(id, header, rows);
    },
    async close() {
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The Google settings `sheetport serve` would be configured with to log in against the fake: its roots, a
 * Desktop-app client, and the passphrase that seals a login kept in the secrets file (tests have no OS keychain).
 */
export function desktopLogin(fakeUrl: string): GoogleConfig {
  return {
    apiRoot: fakeUrl,
    clientId: 'desktop-client',
    clientSecret: 'desktop-secret',
    passphrase: 'a long passphrase',
  };
}

/** The status and body of a googleapis call that must fail (a GaxiosError); throws if it succeeds. */
export async function googleFailure<Body = unknown>(
  call: Promise<unknown>,
): Promise<{ status: number; body: Body }> {
  try {
    await call;
  } catch (error) {
    const e = error as { status: number; response: { data: Body } };
    return { status: e.status, body: e.response.data };
  }
  throw new Error('expected the call to fail');
}
