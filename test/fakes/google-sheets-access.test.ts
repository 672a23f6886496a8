// A spreadsheet that exists but belongs to another account (not shared with the caller) against one that does not
// exist, on every route of the fake, through Google's own Node clients over HTTP. Sheets tells the two apart: 403
// PERMISSION_DENIED "The caller does not have permission" against 404 NOT_FOUND "Requested entity was not found."
// (the recorded body). Drive does not: both are its 404 `notFound` "File not found: <id>.", and Drive lists only
// the files the caller can see. Neither answer changes anything. A spreadsheet shared view-only reads as usual and
// answers every change with that same 403.
import type { drive as driveApi } from '@googleapis/drive';
import type { sheets as sheetsApi } from '@googleapis/sheets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleClients, googleFailure } from '../helpers/google.ts';
import { type FakeGoogle, startFakeGoogle } from './google-sheets/server.ts';

let fake: FakeGoogle;
let sheets: ReturnType<typeof sheetsApi>;
let drive: ReturnType<typeof driveApi>;
const noRetry = { retry: false };

beforeAll(async () => {
  fake = await startFakeGoogle();
  ({ sheets, drive } = googleClients(fake, { retry: false }));
});
afterAll(() => fake.close());

/** A Drive id of the right shape that no file has. */
const MISSING = `1${'Q'.repeat(43)}`;

type Call = [string, (id: string) => Promise<unknown>];

const SHEETS_READS: Call[] = [
  ['spreadsheets.get', (spreadsheetId) => sheets.spreadsheets.get({ spreadsheetId }, noRetry)],
  [
    'values.get',
    (spreadsheetId) => sheets.spreadsheets.values.get({ spreadsheetId, range: 'Sheet1!A1:B2' }, noRetry),
  ],
  [
    'values.batchGet',
    (spreadsheetId) =>
      sheets.spreadsheets.values.batchGet({ spreadsheetId, ranges: ['Sheet1!A1', 'Sheet1!B:B'] }, noRetry),
  ],
];

const SHEETS_CHANGES: Call[] = [
  [
    'values.update',
    (spreadsheetId) =>
      sheets.spreadsheets.values.update(
        { spreadsheetId, range: 'Sheet1!A1', valueInputOption: 'RAW', requestBody: { values: [['x']] } },
        noRetry,
      ),
  ],
  [
    'values.append',
    (spreadsheetId) =>
      sheets.spreadsheets.values.append(
        {
          spreadsheetId,
          range: 'Sheet1!A1',
          valueInputOption: 'RAW',
          insertDataOption: 'INSERT_ROWS',
          requestBody: { values: [['x']] },
        },
        noRetry,
      ),
  ],
  [
    'values.batchUpdate',
    (spreadsheetId) =>
      sheets.spreadsheets.values.batchUpdate(
        {
          spreadsheetId,
          requestBody: { valueInputOption: 'RAW', data: [{ range: 'Sheet1!A1', values: [['x']] }] },
        },
        noRetry,
      ),
  ],
  [
    'values.clear',
    (spreadsheetId) =>
      sheets.spreadsheets.values.clear({ spreadsheetId, range: 'Sheet1', requestBody: {} }, noRetry),
  ],
  [
    'values.batchClear',
    (spreadsheetId) =>
      sheets.spreadsheets.values.batchClear({ spreadsheetId, requestBody: { ranges: ['Sheet1'] } }, noRetry),
  ],
  [
    'spreadsheets.batchUpdate',
    (spreadsheetId) =>
      sheets.spreadsheets.batchUpdate(
        {
          spreadsheetId,
          requestBody: {
            requests: [
              { updateSpreadsheetProperties: { properties: { title: 'Taken over' }, fields: 'title' } },
              { appendDimension: { sheetId: 0, dimension: 'ROWS', length: 5 } },
            ],
          },
        },
        noRetry,
      ),
  ],
];

const SHEETS_CALLS = [...SHEETS_READS, ...SHEETS_CHANGES];

const DRIVE_CALLS: Call[] = [
  ['files.get', (fileId) => drive.files.get({ fileId, fields: 'modifiedTime,version' }, noRetry)],
  ['files.update', (fileId) => drive.files.update({ fileId, requestBody: { name: 'Renamed' } }, noRetry)],
  ['files.copy', (fileId) => drive.files.copy({ fileId, requestBody: { name: 'Copied' } }, noRetry)],
  ['comments.list', (fileId) => drive.comments.list({ fileId, fields: 'comments' }, noRetry)],
  ['files.delete', (fileId) => drive.files.delete({ fileId }, noRetry)],
];

const PERMISSION_DENIED = {
  status: 403,
  body: { error: { code: 403, message: 'The caller does not have permission', status: 'PERMISSION_DENIED' } },
};

const driveNotFound = (fileId: string) => ({
  status: 404,
  body: {
    error: {
      code: 404,
      message: `File not found: ${fileId}.`,
      errors: [
        {
          message: `File not found: ${fileId}.`,
          domain: 'global',
          reason: 'notFound',
          location: 'fileId',
          locationType: 'parameter',
        },
      ],
      status: 'NOT_FOUND',
    },
  },
});

/** Another account's spreadsheet, with a value in it; the caller may not open it (or, `viewOnly`, only read it). */
async function othersSpreadsheet(name: string, access: 'denied' | 'viewOnly' = 'denied'): Promise<string> {
  const created = await drive.files.create({
    requestBody: { name, mimeType: 'application/vnd.google-apps.spreadsheet' },
  });
  const id = created.data.id as string;
  await sheets.spreadsheets.values.update({
    spreadsheetId: id,
    range: 'Sheet1!A1',
    valueInputOption: 'RAW',
    requestBody: { values: [['Salary'], [100]] },
  });
  fake.store[access].add(id);
  return id;
}

/** What a change would move: the title, the grid, the values and Drive's version (read once it is shared). */
async function stateOf(id: string, access: 'denied' | 'viewOnly' = 'denied'): Promise<unknown> {
  fake.store[access].delete(id);
  try {
    const book = await sheets.spreadsheets.get({ spreadsheetId: id });
    const values = await sheets.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1' });
    const file = await drive.files.get({ fileId: id, fields: 'name,version,modifiedTime' });
    return { book: book.data, values: values.data.values, file: file.data };
  } finally {
    fake.store[access].add(id);
  }
}

describe("another account's spreadsheet against a missing one", () => {
  it.each(SHEETS_CALLS)('Sheets %s: 403 PERMISSION_DENIED against 404 NOT_FOUND', async (_name, call) => {
    const id = await othersSpreadsheet('Payroll');
    expect(await googleFailure(call(id))).toEqual(PERMISSION_DENIED);
    expect(await googleFailure(call(MISSING))).toEqual({
      status: 404,
      body: { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } },
    });
  });

  it.each(DRIVE_CALLS)('Drive %s: the same 404 notFound for both', async (_name, call) => {
    const id = await othersSpreadsheet('Payroll');
    expect(await googleFailure(call(id))).toEqual(driveNotFound(id));
    expect(await googleFailure(call(MISSING))).toEqual(driveNotFound(MISSING));
  });

  it('no refused call changes it, and Drive does not list it', async () => {
    const id = await othersSpreadsheet('Ledger');
    const before = await stateOf(id);
    for (const [, call] of [...SHEETS_CALLS, ...DRIVE_CALLS]) await googleFailure(call(id));
    expect(await stateOf(id)).toEqual(before);

    const listed = async () =>
      (await drive.files.list({ q: "name = 'Ledger' and trashed = false", fields: 'files(id)' })).data.files;
    expect(await listed()).toEqual([]);
    fake.store.denied.delete(id);
    expect(await listed()).toEqual([{ id }]);
  });
});

describe('a spreadsheet shared with the caller view-only', () => {
  it('reads as usual on Sheets and Drive', async () => {
    const id = await othersSpreadsheet('Report', 'viewOnly');
    for (const [, call] of SHEETS_READS) await call(id);
    const values = await sheets.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1' });
    expect(values.data.values).toEqual([['Salary'], ['100']]);
    expect((await drive.files.get({ fileId: id, fields: 'name' })).data.name).toBe('Report');
  });

  it.each(SHEETS_CHANGES)('Sheets %s: 403 PERMISSION_DENIED, and nothing changes', async (_name, call) => {
    const id = await othersSpreadsheet('Report', 'viewOnly');
    const before = await stateOf(id, 'viewOnly');
    expect(await googleFailure(call(id))).toEqual(PERMISSION_DENIED);
    expect(await stateOf(id, 'viewOnly')).toEqual(before);
  });
});
