/**
 * Each failure a user meets while connecting a Google spreadsheet (or using one just connected), through the real
 * HTTP path against the Sheets fake answering as Google does: the status, code and reason of the answer, and a
 * message that names what to do. `POST /admin/connections` is what the dashboard's connect form sends; the
 * message shown there is the one asserted here.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectSpreadsheet } from '../../server/connections/connect.ts';
import { seedFile } from '../fakes/google-sheets/admin-routes.ts';
import type { GoogleAccount } from '../helpers/google.ts';
import { storeLogin } from '../helpers/google.ts';
import { type Harness, rowsPath, startHarness, type TestResponse } from '../helpers/harness.ts';
import { expectDocumentedError } from '../helpers/openapi-doc.ts';

// The OAuth client the fake's tokens were issued to, so a refresh reaches the token endpoint's own answer.
const CLIENT = { clientId: 'fake-client', clientSecret: 'fake-secret' };
const PROJECT = '123456789012';

let h: Harness;
let google: GoogleAccount;

beforeAll(async () => {
  h = await startHarness({ kind: 'google', google: CLIENT });
  google = h.google as GoogleAccount;
  google.fake.switches.projectNumber = PROJECT;
});
afterEach(() => {
  google.fake.switches.quota = undefined;
  google.fake.switches.disabledApis.clear();
});
afterAll(async () => {
  await h.close();
});

function connect(location: string): Promise<TestResponse> {
  return h.fetch('/admin/connections', {
    method: 'POST',
    auth: h.context.adminToken,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'google', location }),
  });
}

/** The refusal is documented for the connect route, and nothing was registered. */
async function refused(res: TestResponse): Promise<Record<string, unknown>> {
  const { error } = await res.json();
  expectDocumentedError(error, res.status, 'post', '/admin/connections');
  expect(await h.context.connections.list()).toEqual([]);
  return error;
}

describe('connecting a Google spreadsheet that cannot be used', () => {
  it('an unknown id: 404 spreadsheet_not_found, check the id', async () => {
    const res = await connect(`1${'Q'.repeat(43)}`);
    expect(res.status).toBe(404);
    const error = await refused(res);
    expect(error.code).toBe('spreadsheet_not_found');
    expect(error.message).toMatch(/check the id or URL/);
  });

  it('a spreadsheet the account may not open: 502 google_access_denied, share it or log in with another account', async () => {
    const id = await google.createSpreadsheet('Payroll', ['Name'], [['Ann']]);
    google.fake.store.denied.add(id);
    const res = await connect(`https://docs.google.com/spreadsheets/d/${id}/edit`);
    expect(res.status).toBe(502);
    const error = await refused(res);
    expect(error).toMatchObject({ code: 'upstream_error', reason: 'google_access_denied' });
    expect(error.message).toMatch(/share it with that account/);
    expect(error.message).toMatch(/sheetport login google/);
  });

  it('a Drive file that is no Google spreadsheet: 502 not_a_workbook, save it as Google Sheets', async () => {
    const { id } = seedFile(google.fake.store, {
      name: `budget-${Date.now()}.xlsx`,
      mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    });
    const res = await connect(id);
    expect(res.status).toBe(502);
    const error = await refused(res);
    expect(error).toMatchObject({ code: 'upstream_error', reason: 'not_a_workbook' });
    expect(error.message).toMatch(/File > Save as Google Sheets/);
  });

  it.each([
    ['sheets', 'Google Sheets API'],
    ['drive', 'Google Drive API'],
  ] as const)(
    'the %s API not enabled in the OAuth client project: 502 google_error naming where to enable it',
    async (api, title) => {
      const id = await google.createSpreadsheet(`Off ${api}`, ['Name'], [['Ann']]);
      google.fake.switches.disabledApis.add(api);
      const res = await connect(id);
      expect(res.status).toBe(502);
      const error = await refused(res);
      expect(error).toMatchObject({
        code: 'upstream_error',
        reason: 'google_error',
        google_api: `${api}.googleapis.com`,
      });
      expect(error.message).toContain(`The ${title} is not enabled`);
      expect(error.message).toContain(
        `enable it at https://console.developers.google.com/apis/api/${api}.googleapis.com/overview?project=${PROJECT}`,
      );
      expect(error.message).toContain('SHEETPORT_GOOGLE_CLIENT_ID');
    },
  );

  it("Google's per-minute quota spent: 503 upstream_unavailable with Retry-After of a minute", async () => {
    const id = await google.createSpreadsheet('Busy', ['Name'], [['Ann']]);
    google.fake.switches.quota = { readsPerMinute: 0, writesPerMinute: 60 };
    const res = await connect(id);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('60');
    const error = await refused(res);
    expect(error).toMatchObject({ code: 'upstream_unavailable', retry_after: 60 });
    expect(error.message).toMatch(/per-minute Sheets quota .*ReadRequestsPerMinutePerUser/);
    expect(error.message).toMatch(/Try again after 60 seconds/);
  });

  it('a revoked grant: 502 google_login_required, run `sheetport login google` again', async () => {
    const id = await google.createSpreadsheet('Revoked', ['Name'], [['Ann']]);
    const secrets = h.context.secrets;
    const stored = JSON.parse(secrets.get('google-token:default') ?? '{}');
    google.fake.oauth.revoke(stored.refresh_token);
    try {
      const res = await connect(id);
      expect(res.status).toBe(502);
      const error = await refused(res);
      expect(error).toMatchObject({ code: 'upstream_error', reason: 'google_login_required' });
      expect(error.message).toMatch(/run `sheetport login google` again/);
    } finally {
      storeLogin(google.fake, secrets);
    }
  });
});

describe('a tab deleted in Google Sheets', () => {
  it('a write racing the deletion answers 404 sheet_not_found, and so does every request after it', async () => {
    const id = await google.createSpreadsheet('Two tabs', ['Name'], [['Ann']]);
    const added = await google.sheets.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: { requests: [{ addSheet: { properties: { title: 'Extra' } } }] },
    });
    const sheetId = added.data.replies?.[0]?.addSheet?.properties?.sheetId as number;
    await google.sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Extra!A1',
      valueInputOption: 'RAW',
      requestBody: { values: [['Key'], ['a']] },
    });
    const { connection } = await connectSpreadsheet(
      h.context.connections,
      { location: id },
      h.context.sourceOptions,
    );
    try {
      expect((await h.fetch(rowsPath(connection, 'Extra'))).status).toBe(200);

      // Someone deletes the tab in the browser in the instant between SheetPort's look and its write.
      google.fake.switches.beforeNextWrite(async () => {
        await google.sheets.spreadsheets.batchUpdate({
          spreadsheetId: id,
          requestBody: { requests: [{ deleteSheet: { sheetId } }] },
        });
      });
      const write = await h.fetch(rowsPath(connection, 'Extra'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Key: 'b' }),
      });
      expect(write.status).toBe(404);
      const { error } = await write.json();
      expect(error.code).toBe('sheet_not_found');
      expect(error.message).toMatch(/no longer in the Google spreadsheet .*nothing was written/);
      expect(error.message).toContain('GET /v1/spreadsheets/{spreadsheet_id}');

      const read = await h.fetch(rowsPath(connection, 'Extra'));
      expect(read.status).toBe(404);
      const after = (await read.json()).error;
      expect(after).toMatchObject({ code: 'sheet_not_found', sheet: 'Extra' });
      expect(after.message).toMatch(/renamed or deleted/);
    } finally {
      await h.context.connections.remove(connection.spreadsheetId);
    }
  });
});

describe('a connected spreadsheet that the account can no longer open', () => {
  const append = (body: Record<string, unknown>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  /** Past the copy's max age (40 ms in the harness), so the next request asks Google again. */
  const pastMaxAge = () => new Promise((resolve) => setTimeout(resolve, 100));

  async function connected(title: string) {
    const id = await google.createSpreadsheet(title, ['Name'], [['Ann']]);
    const { connection } = await connectSpreadsheet(
      h.context.connections,
      { location: id },
      h.context.sourceOptions,
    );
    expect((await h.fetch(rowsPath(connection, 'Sheet1'))).status).toBe(200);
    return { id, connection, v1Rows: `/v1/sheets/${id}~0/rows` };
  }

  async function accessDenied(res: TestResponse, method: 'get' | 'post', route: string): Promise<void> {
    expect(res.status).toBe(502);
    const { error } = await res.json();
    expectDocumentedError(error, res.status, method, route);
    expect(error).toMatchObject({ code: 'upstream_error', reason: 'google_access_denied' });
    expect(error.message).toMatch(/share it with that account/);
    expect(error.message).toMatch(/sheetport login google/);
  }

  it('its sharing revoked: reads and writes on /api and /v1, and the dashboard, answer 502 google_access_denied, nothing is written; shared again, both work', async () => {
    const { id, connection, v1Rows } = await connected('Shared once');
    const apiRows = rowsPath(connection, 'Sheet1');
    try {
      // Drive answers this with the 404 of a missing file; Sheets with 403 PERMISSION_DENIED.
      google.fake.store.denied.add(id);
      await pastMaxAge();
      await accessDenied(await h.fetch(apiRows), 'get', '/api/spreadsheets/{userKey}/{sheetName}');
      await accessDenied(await h.fetch(v1Rows), 'get', '/v1/sheets/{sheetId}/rows');
      await accessDenied(
        await h.fetch(apiRows, append({ Name: 'Bob' })),
        'post',
        '/api/spreadsheets/{userKey}/{sheetName}',
      );
      await accessDenied(await h.fetch(v1Rows, append({ Name: 'Cy' })), 'post', '/v1/sheets/{sheetId}/rows');
      // The dashboard's view of it says the same, and keeps the connection (no 404 that reads as "gone").
      const admin = { auth: h.context.adminToken };
      const dashboard = `/admin/connections/${connection.spreadsheetId}`;
      await accessDenied(await h.fetch(dashboard, admin), 'get', '/admin/connections/{id}');
      await accessDenied(
        await h.fetch(`${dashboard}/sheets/Sheet1/preview`, admin),
        'get',
        '/admin/connections/{id}/sheets/{sheet}/preview',
      );
      expect((await h.context.connections.list()).map((c) => c.spreadsheetId)).toContain(id);
      google.fake.store.denied.delete(id);
      const values = await google.sheets.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1' });
      expect(values.data.values).toEqual([['Name'], ['Ann']]);

      // Shared again: the next look finds it, whatever Sheets said before.
      await pastMaxAge();
      expect(await (await h.fetch(apiRows)).json()).toEqual([{ Name: 'Ann' }]);
      expect((await h.fetch(v1Rows, append({ Name: 'Dee' }))).status).toBe(201);
    } finally {
      google.fake.store.denied.delete(id);
      await h.context.connections.remove(connection.spreadsheetId);
    }
  });

  it('shared with it view-only: reads work, a write on /api and /v1 answers 502 google_access_denied and writes nothing', async () => {
    const { id, connection, v1Rows } = await connected('View only');
    const apiRows = rowsPath(connection, 'Sheet1');
    try {
      google.fake.store.viewOnly.add(id);
      await pastMaxAge();
      expect(await (await h.fetch(apiRows)).json()).toEqual([{ Name: 'Ann' }]);
      await accessDenied(
        await h.fetch(apiRows, append({ Name: 'Bob' })),
        'post',
        '/api/spreadsheets/{userKey}/{sheetName}',
      );
      await accessDenied(await h.fetch(v1Rows, append({ Name: 'Cy' })), 'post', '/v1/sheets/{sheetId}/rows');
      expect((await h.fetch(v1Rows)).status).toBe(200);
      const values = await google.sheets.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1' });
      expect(values.data.values).toEqual([['Name'], ['Ann']]);
    } finally {
      google.fake.store.viewOnly.delete(id);
      await h.context.connections.remove(connection.spreadsheetId);
    }
  });

  it('deleted in Drive: a read and a write answer 404 spreadsheet_not_found', async () => {
    const { id, connection, v1Rows } = await connected('Deleted later');
    try {
      await google.drive.files.delete({ fileId: id });
      await pastMaxAge();
      for (const res of [await h.fetch(v1Rows), await h.fetch(v1Rows, append({ Name: 'Bob' }))]) {
        expect(res.status).toBe(404);
        const { error } = await res.json();
        expect(error.code).toBe('spreadsheet_not_found');
        expect(error.message).toMatch(/check the id or URL/);
      }
    } finally {
      await h.context.connections.remove(connection.spreadsheetId);
    }
  });
});
