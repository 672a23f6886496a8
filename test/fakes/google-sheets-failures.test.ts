// The failures a user meets while logging in and connecting, as the fake answers them to Google's own Node
// clients over HTTP: status, `error.code`, `error.status`, `error.message`, legacy `errors[]` and `details[]`
// as Google sends them. Where a real recording exists (test/fixtures/google-recordings, gspread's cassettes),
// the fake's body is compared with the recorded one.
import { readFile } from 'node:fs/promises';
import type { drive as driveApi } from '@googleapis/drive';
import type { sheets as sheetsApi } from '@googleapis/sheets';
import { OAuth2Client } from 'google-auth-library';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { googleClients, googleFailure } from '../helpers/google.ts';
import { seedFile } from './google-sheets/admin-routes.ts';
import { type FakeGoogle, startFakeGoogle } from './google-sheets/server.ts';

const RECORDING = new URL(
  '../fixtures/google-recordings/ClientTest.test_access_non_existing_spreadsheet.json',
  import.meta.url,
);

let fake: FakeGoogle;
let sheets: ReturnType<typeof sheetsApi>;
let drive: ReturnType<typeof driveApi>;
const noRetry = { retry: false };

beforeAll(async () => {
  fake = await startFakeGoogle();
  fake.switches.projectNumber = '123456789012';
  ({ sheets, drive } = googleClients(fake, { retry: false }));
});
afterEach(() => {
  fake.switches.quota = undefined;
  fake.switches.disabledApis.clear();
});
afterAll(() => fake.close());

type Envelope = {
  error: {
    code: number;
    message: string;
    status: string;
    errors?: Record<string, string>[];
    details?: Record<string, unknown>[];
  };
};

const failure = (call: Promise<unknown>) => googleFailure<Envelope>(call);

async function newSpreadsheet(name: string): Promise<string> {
  const created = await drive.files.create({
    requestBody: { name, mimeType: 'application/vnd.google-apps.spreadsheet' },
  });
  return created.data.id as string;
}

describe('the fake answers each login and connect failure as Google does', () => {
  it('an unknown spreadsheet id: 404 NOT_FOUND, the recorded body exactly', async () => {
    const cassette = JSON.parse(await readFile(RECORDING, 'utf8')) as {
      interactions: {
        request: { uri: string };
        response: { status: { code: number }; body: { string: string } };
      }[];
    };
    const recorded = cassette.interactions.filter((i) => i.response.status.code === 404);
    expect(recorded.length).toBeGreaterThan(0);
    for (const interaction of recorded) {
      const id = new URL(interaction.request.uri).pathname.split('/').pop() as string;
      const got = await failure(
        sheets.spreadsheets.get({ spreadsheetId: id, includeGridData: false }, noRetry),
      );
      expect(got.status).toBe(interaction.response.status.code);
      expect(got.body).toEqual(JSON.parse(interaction.response.body.string));
    }
    // Drive's answer for the same id names it, with the legacy errors array.
    const onDrive = await failure(drive.files.get({ fileId: 'test', fields: 'version' }, noRetry));
    expect(onDrive.status).toBe(404);
    expect(onDrive.body.error).toMatchObject({
      code: 404,
      message: 'File not found: test.',
      status: 'NOT_FOUND',
    });
    expect(onDrive.body.error.errors?.[0]).toMatchObject({ reason: 'notFound', domain: 'global' });
  });

  it('a spreadsheet not shared with the account: Sheets 403 PERMISSION_DENIED, Drive the 404 of a missing file', async () => {
    const id = await newSpreadsheet('Payroll');
    fake.store.denied.add(id);
    const got = await failure(sheets.spreadsheets.get({ spreadsheetId: id }, noRetry));
    expect(got).toEqual({
      status: 403,
      body: {
        error: { code: 403, message: 'The caller does not have permission', status: 'PERMISSION_DENIED' },
      },
    });
    const onDrive = await failure(drive.files.get({ fileId: id, fields: 'version' }, noRetry));
    expect(onDrive.status).toBe(404);
    expect(onDrive.body.error.message).toBe(`File not found: ${id}.`);
  });

  it('a revoked grant: the token endpoint answers 400 invalid_grant, "Token has been expired or revoked."', async () => {
    const { refresh_token } = fake.oauth.issue('desktop-client');
    const auth = new OAuth2Client({
      clientId: 'desktop-client',
      clientSecret: 'desktop-secret',
      endpoints: { oauth2TokenUrl: `${fake.url}/token` },
    });
    auth.setCredentials({ refresh_token });
    expect((await auth.refreshAccessToken()).credentials.access_token).toMatch(/^ya29\./);
    fake.oauth.revoke(refresh_token);
    const refused = (await auth.refreshAccessToken().catch((e: unknown) => e)) as {
      status: number;
      response: { data: unknown };
    };
    expect(refused.status).toBe(400);
    expect(refused.response.data).toEqual({
      error: 'invalid_grant',
      error_description: 'Token has been expired or revoked.',
    });
  });

  it('the per-minute per-user quota: 429 RESOURCE_EXHAUSTED with the quota metric in an ErrorInfo', async () => {
    const id = await newSpreadsheet('Busy');
    fake.switches.quota = { readsPerMinute: 0, writesPerMinute: 60 };
    const got = await failure(sheets.spreadsheets.get({ spreadsheetId: id }, noRetry));
    expect(got.status).toBe(429);
    expect(got.body.error).toEqual({
      code: 429,
      message:
        "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user' of service " +
        "'sheets.googleapis.com' for consumer 'project_number:123456789012'.",
      status: 'RESOURCE_EXHAUSTED',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'RATE_LIMIT_EXCEEDED',
          domain: 'googleapis.com',
          metadata: {
            service: 'sheets.googleapis.com',
            quota_metric: 'sheets.googleapis.com/read_requests',
            quota_limit: 'ReadRequestsPerMinutePerUser',
            consumer: 'projects/123456789012',
          },
        },
      ],
    });
  });

  it.each([
    ['sheets', 'Google Sheets API'],
    ['drive', 'Google Drive API'],
  ] as const)(
    'the %s API not enabled in the client project: 403 SERVICE_DISABLED / accessNotConfigured',
    async (api, title) => {
      const id = await newSpreadsheet('Off');
      fake.switches.disabledApis.add(api);
      const call =
        api === 'sheets'
          ? sheets.spreadsheets.get({ spreadsheetId: id }, noRetry)
          : drive.files.get({ fileId: id, fields: 'version' }, noRetry);
      const got = await failure(call);
      const service = `${api}.googleapis.com`;
      const url = `https://console.developers.google.com/apis/api/${service}/overview?project=123456789012`;
      expect(got.status).toBe(403);
      const { error } = got.body;
      expect(error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
      expect(error.message).toBe(
        `${title} has not been used in project 123456789012 before or it is disabled. Enable it by visiting ${url} ` +
          'then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our ' +
          'systems and retry.',
      );
      expect(error.errors).toEqual([
        {
          message: error.message,
          domain: 'usageLimits',
          reason: 'accessNotConfigured',
          extendedHelp: 'https://console.developers.google.com',
        },
      ]);
      expect(error.details?.[0]).toEqual({
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'SERVICE_DISABLED',
        domain: 'googleapis.com',
        metadata: {
          service,
          consumer: 'projects/123456789012',
          activationUrl: url,
          serviceTitle: title,
          containerInfo: '123456789012',
        },
      });
      expect(error.details?.map((d) => d['@type'])).toEqual([
        'type.googleapis.com/google.rpc.ErrorInfo',
        'type.googleapis.com/google.rpc.LocalizedMessage',
        'type.googleapis.com/google.rpc.Help',
      ]);
      // The other API still answers.
      if (api === 'sheets')
        expect((await drive.files.get({ fileId: id, fields: 'version' })).status).toBe(200);
      else expect((await sheets.spreadsheets.get({ spreadsheetId: id })).status).toBe(200);
    },
  );

  it('a deleted tab: 400 INVALID_ARGUMENT "Unable to parse range: ..." (and "No grid with id" in a batch)', async () => {
    const id = await newSpreadsheet('Tabs');
    const added = await sheets.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: { requests: [{ addSheet: { properties: { title: 'Extra' } } }] },
    });
    const sheetId = added.data.replies?.[0]?.addSheet?.properties?.sheetId as number;
    await sheets.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: { requests: [{ deleteSheet: { sheetId } }] },
    });
    const read = await failure(
      sheets.spreadsheets.values.get({ spreadsheetId: id, range: "'Extra'!A1:C" }, noRetry),
    );
    expect(read).toEqual({
      status: 400,
      body: {
        error: { code: 400, message: "Unable to parse range: 'Extra'!A1:C", status: 'INVALID_ARGUMENT' },
      },
    });
    const append = await failure(
      sheets.spreadsheets.values.append(
        {
          spreadsheetId: id,
          range: "'Extra'!A5",
          valueInputOption: 'RAW',
          insertDataOption: 'INSERT_ROWS',
          requestBody: { values: [['x']] },
        },
        noRetry,
      ),
    );
    expect(append.body.error).toMatchObject({ code: 400, message: "Unable to parse range: 'Extra'!A5" });
    const batch = await failure(
      sheets.spreadsheets.batchUpdate(
        {
          spreadsheetId: id,
          requestBody: {
            requests: [{ updateCells: { start: { sheetId }, rows: [{ values: [{}] }], fields: '*' } }],
          },
        },
        noRetry,
      ),
    );
    expect(batch.body.error).toEqual({
      code: 400,
      message: `Invalid requests[0].updateCells: No grid with id: ${sheetId}`,
      status: 'INVALID_ARGUMENT',
    });
  });

  it('a Drive file that is not a Google spreadsheet: 400 FAILED_PRECONDITION, "not supported for this document"', async () => {
    const { id } = seedFile(fake.store, {
      name: 'budget.xlsx',
      mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    });
    const got = await failure(sheets.spreadsheets.get({ spreadsheetId: id }, noRetry));
    expect(got).toEqual({
      status: 400,
      body: {
        error: {
          code: 400,
          message: 'This operation is not supported for this document',
          errors: [
            {
              message: 'This operation is not supported for this document',
              domain: 'global',
              reason: 'failedPrecondition',
            },
          ],
          status: 'FAILED_PRECONDITION',
        },
      },
    });
    // Drive itself knows the file.
    expect((await drive.files.get({ fileId: id, fields: 'mimeType' })).data.mimeType).toMatch(
      /spreadsheetml/,
    );
  });

  it('a login cancelled on the consent page: redirected back with error=access_denied and the state, no code', async () => {
    fake.oauth.refuseNextConsent();
    const auth = new OAuth2Client({
      clientId: 'desktop-client',
      endpoints: { oauth2AuthBaseUrl: `${fake.url}/o/oauth2/v2/auth` },
    });
    const consent = auth.generateAuthUrl({
      scope: ['https://www.googleapis.com/auth/spreadsheets'],
      state: 'st4te',
      redirect_uri: 'http://127.0.0.1:9/oauth2callback',
    });
    const res = await fetch(consent, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location') as string);
    expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:9/oauth2callback');
    expect(Object.fromEntries(back.searchParams)).toEqual({ error: 'access_denied', state: 'st4te' });
    // Only that one consent is refused: the next is approved with a code.
    const next = new URL((await fetch(consent, { redirect: 'manual' })).headers.get('location') as string);
    expect(next.searchParams.get('code')).toMatch(/^4\/0/);
  });
});
