// The fake through Google's own Node clients (@googleapis/sheets, @googleapis/drive) over HTTP:
// the calls a SheetPort Google source makes, answered as Google answers them.
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
  ({ sheets, drive } = googleClients(fake));
});
afterAll(() => fake.close());

async function newSpreadsheet(name: string): Promise<string> {
  const created = await drive.files.create({
    requestBody: { name, mimeType: 'application/vnd.google-apps.spreadsheet' },
  });
  return created.data.id as string;
}

async function status(call: Promise<unknown>): Promise<{ status: number; data: unknown }> {
  const { status, body } = await googleFailure(call);
  return { status, data: body };
}

describe('Google Sheets fake through the googleapis clients', () => {
  it('creates a spreadsheet in Drive with one 1000×26 Sheet1 (gid 0) and reports titles and grids', async () => {
    const id = await newSpreadsheet('Budget');
    const meta = await sheets.spreadsheets.get({
      spreadsheetId: id,
      fields: 'properties.title,sheets.properties(sheetId,title,index,gridProperties(rowCount,columnCount))',
    });
    expect(meta.data).toEqual({
      properties: { title: 'Budget' },
      sheets: [
        {
          properties: {
            sheetId: 0,
            title: 'Sheet1',
            index: 0,
            gridProperties: { rowCount: 1000, columnCount: 26 },
          },
        },
      ],
    });
    const full = await sheets.spreadsheets.get({ spreadsheetId: id });
    expect(full.data.spreadsheetId).toBe(id);
    expect(full.data.properties?.locale).toBe('en_US');
    expect(full.data.sheets?.[0]?.properties?.sheetType).toBe('GRID');
  });

  it('renders values as FORMATTED_VALUE, UNFORMATTED_VALUE and FORMULA, dates as serials or strings', async () => {
    const id = await newSpreadsheet('Render');
    const put = await sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Sheet1!A1',
      valueInputOption: 'USER_ENTERED',
      requestBody: {
        values: [['=4/2', '2020-01-01', 'text', 53, '1,234.50', 'TRUE', "'007", '12%', '=A1*B1']],
      },
    });
    expect(put.data).toMatchObject({
      updatedRange: 'Sheet1!A1:I1',
      updatedRows: 1,
      updatedColumns: 9,
      updatedCells: 9,
    });
    const read = async (valueRenderOption: string, dateTimeRenderOption?: string) =>
      (
        await sheets.spreadsheets.values.get({
          spreadsheetId: id,
          range: 'Sheet1!A1:I1',
          valueRenderOption,
          dateTimeRenderOption,
        })
      ).data.values;
    expect(await read('FORMATTED_VALUE')).toEqual([
      ['2', '2020-01-01', 'text', '53', '1,234.50', 'TRUE', '007', '12%', '87662'],
    ]);
    expect(await read('UNFORMATTED_VALUE', 'SERIAL_NUMBER')).toEqual([
      [2, 43831, 'text', 53, 1234.5, true, '007', 0.12, 87662],
    ]);
    expect(await read('UNFORMATTED_VALUE', 'FORMATTED_STRING')).toEqual([
      [2, '2020-01-01', 'text', 53, 1234.5, true, '007', 0.12, 87662],
    ]);
    expect(await read('FORMULA')).toEqual([['=4/2', 43831, 'text', 53, 1234.5, true, '007', 0.12, '=A1*B1']]);
  });

  it('keeps RAW input as typed: strings stay strings, numbers stay numbers', async () => {
    const id = await newSpreadsheet('Raw');
    await sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Sheet1!A1',
      valueInputOption: 'RAW',
      requestBody: { values: [['=1+2', '12', 12, true]] },
    });
    const got = await sheets.spreadsheets.values.get({
      spreadsheetId: id,
      range: 'Sheet1',
      valueRenderOption: 'UNFORMATTED_VALUE',
    });
    expect(got.data).toEqual({
      range: 'Sheet1!A1:Z1000',
      majorDimension: 'ROWS',
      values: [['=1+2', '12', 12, true]],
    });
  });

  it('trims trailing empties, keeps interior [] rows, omits values for an empty range, reads COLUMNS', async () => {
    const id = await newSpreadsheet('Trim');
    await sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: "'Sheet1'!A1",
      valueInputOption: 'RAW',
      requestBody: {
        values: [
          ['A1', 'B1', '', 'D1'],
          ['', 'b2', '', ''],
          ['', '', '', ''],
          ['A4', 'B4', '', 'D4'],
        ],
      },
    });
    const rows = await sheets.spreadsheets.values.get({ spreadsheetId: id, range: "'Sheet1'" });
    expect(rows.data.values).toEqual([['A1', 'B1', '', 'D1'], ['', 'b2'], [], ['A4', 'B4', '', 'D4']]);
    const empty = await sheets.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!F1:G' });
    expect(empty.data).toEqual({ range: 'Sheet1!F1:G1000', majorDimension: 'ROWS' });
    const cols = await sheets.spreadsheets.values.get({
      spreadsheetId: id,
      range: 'Sheet1!B1:B',
      majorDimension: 'COLUMNS',
    });
    expect(cols.data).toEqual({
      range: 'Sheet1!B1:B1000',
      majorDimension: 'COLUMNS',
      values: [['B1', 'b2', '', 'B4']],
    });
    const batch = await sheets.spreadsheets.values.batchGet({
      spreadsheetId: id,
      ranges: ['Sheet1!D4:A1', 'Sheet1!A2:2'],
    });
    expect(batch.data.valueRanges).toEqual([
      {
        range: 'Sheet1!A1:D4',
        majorDimension: 'ROWS',
        values: [['A1', 'B1', '', 'D1'], ['', 'b2'], [], ['A4', 'B4', '', 'D4']],
      },
      { range: 'Sheet1!A2:Z2', majorDimension: 'ROWS', values: [['', 'b2']] },
    ]);
  });

  it('appends under the last table in the range; INSERT_ROWS pushes what was below down', async () => {
    const id = await newSpreadsheet('Append');
    // Google's guide example: tables A1:C2 and B4:D6.
    await sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Sheet1!A1',
      valueInputOption: 'RAW',
      requestBody: {
        values: [
          ['x', 'y', 'z'],
          ['x', 'y', 'z'],
          [],
          ['', 'x', 'y'],
          ['', '', 'y', 'z'],
          ['', 'x', 'y', 'z'],
        ],
      },
    });
    const whole = await sheets.spreadsheets.values.append({
      spreadsheetId: id,
      range: 'Sheet1',
      valueInputOption: 'RAW',
      requestBody: { values: [['n1']] },
    });
    expect(whole.data.tableRange).toBe('Sheet1!B4:D6');
    expect(whole.data.updates?.updatedRange).toBe('Sheet1!B7');
    const first = await sheets.spreadsheets.values.append({
      spreadsheetId: id,
      range: 'Sheet1!A1',
      valueInputOption: 'USER_ENTERED',
      insertDataOption: 'INSERT_ROWS',
      includeValuesInResponse: true,
      requestBody: { values: [['=1+1', null, 'q']] },
    });
    expect(first.data.tableRange).toBe('Sheet1!A1:C2');
    expect(first.data.updates).toMatchObject({
      updatedRange: 'Sheet1!A3:C3',
      updatedRows: 1,
      updatedColumns: 2,
      updatedCells: 2,
      updatedData: { range: 'Sheet1!A3:C3', majorDimension: 'ROWS', values: [['2', '', 'q']] },
    });
    const after = await sheets.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1:D8' });
    expect(after.data.values).toEqual([
      ['x', 'y', 'z'],
      ['x', 'y', 'z'],
      ['2', '', 'q'],
      [],
      ['', 'x', 'y'],
      ['', '', 'y', 'z'],
      ['', 'x', 'y', 'z'],
      ['', 'n1'],
    ]);
    const meta = await sheets.spreadsheets.get({
      spreadsheetId: id,
      fields: 'sheets.properties.gridProperties.rowCount',
    });
    expect(meta.data.sheets?.[0]?.properties?.gridProperties?.rowCount).toBe(1001);
    const empty = await sheets.spreadsheets.values.append({
      spreadsheetId: id,
      range: 'Sheet1!F10',
      valueInputOption: 'RAW',
      requestBody: { values: [['alone']] },
    });
    expect(empty.data.tableRange).toBeUndefined();
    expect(empty.data.updates?.updatedRange).toBe('Sheet1!F10');
  });

  it('clears ranges and batch-updates values', async () => {
    const id = await newSpreadsheet('Clear');
    const batch = await sheets.spreadsheets.values.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        valueInputOption: 'RAW',
        data: [
          { range: 'Sheet1!A1:D1', values: [['A1', 'B1', '', 'D1']] },
          { range: 'Sheet1!A4:D4', values: [['A4', 'B4', '', 'D4']] },
        ],
      },
    });
    expect(batch.data).toMatchObject({
      totalUpdatedRows: 2,
      totalUpdatedColumns: 4,
      totalUpdatedCells: 8,
      totalUpdatedSheets: 1,
    });
    const cleared = await sheets.spreadsheets.values.clear({ spreadsheetId: id, range: 'Sheet1!A1:B1' });
    expect(cleared.data.clearedRange).toBe('Sheet1!A1:B1');
    const both = await sheets.spreadsheets.values.batchClear({
      spreadsheetId: id,
      requestBody: { ranges: ['Sheet1!D1', 'Sheet1!A4:D4'] },
    });
    expect(both.data.clearedRanges).toEqual(['Sheet1!D1', 'Sheet1!A4:D4']);
    const rest = await sheets.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1' });
    expect(rest.data.values).toBeUndefined();
  });

  it('applies structural batchUpdate requests and is atomic: one bad request changes nothing', async () => {
    const id = await newSpreadsheet('Structure');
    await sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Sheet1!A1',
      valueInputOption: 'RAW',
      requestBody: { values: [['r1'], ['r2'], ['r3']] },
    });
    const replies = await sheets.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        requests: [
          { insertDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 1, endIndex: 2 } } },
          { deleteDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 0, endIndex: 1 } } },
          { appendDimension: { sheetId: 0, dimension: 'COLUMNS', length: 4 } },
          {
            updateCells: {
              start: { sheetId: 0, rowIndex: 0, columnIndex: 1 },
              rows: [{ values: [{ userEnteredValue: { numberValue: 7 } }] }],
              fields: 'userEnteredValue',
            },
          },
          { updateSheetProperties: { properties: { sheetId: 0, title: 'Data' }, fields: 'title' } },
          { addSheet: { properties: { title: 'Second' } } },
        ],
      },
    });
    expect(replies.data.replies?.slice(0, 5)).toEqual([{}, {}, {}, {}, {}]);
    expect(replies.data.replies?.[5]?.addSheet?.properties).toMatchObject({
      title: 'Second',
      index: 1,
      sheetType: 'GRID',
    });
    const values = await sheets.spreadsheets.values.get({
      spreadsheetId: id,
      range: 'Data',
      valueRenderOption: 'UNFORMATTED_VALUE',
    });
    expect(values.data).toEqual({
      range: 'Data!A1:AD1000',
      majorDimension: 'ROWS',
      values: [['', 7], ['r2'], ['r3']],
    });

    const before = await drive.files.get({ fileId: id, fields: 'modifiedTime,version' });
    const bad = await status(
      sheets.spreadsheets.batchUpdate({
        spreadsheetId: id,
        requestBody: {
          requests: [
            { deleteDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 0, endIndex: 1 } } },
            {
              deleteDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 5000, endIndex: 5001 } },
            },
          ],
        },
      }),
    );
    expect(bad).toEqual({
      status: 400,
      data: {
        error: {
          code: 400,
          message:
            "Invalid requests[1].deleteDimension: Cannot delete a row that doesn't exist. Tried to delete row index 5000 but there are only 999 rows.",
          status: 'INVALID_ARGUMENT',
        },
      },
    });
    const unchanged = await sheets.spreadsheets.values.get({ spreadsheetId: id, range: 'Data!A1:A3' });
    expect(unchanged.data.values).toEqual([[], ['r2'], ['r3']]);
    const after = await drive.files.get({ fileId: id, fields: 'modifiedTime,version' });
    expect(after.data).toEqual(before.data);
  });

  it('bumps Drive modifiedTime and version on every change, lists and deletes files', async () => {
    const id = await newSpreadsheet('Watched');
    const v1 = await drive.files.get({ fileId: id, fields: 'modifiedTime,version' });
    await sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'A1',
      valueInputOption: 'RAW',
      requestBody: { values: [[1]] },
    });
    const v2 = await drive.files.get({ fileId: id, fields: 'modifiedTime,version' });
    await sheets.spreadsheets.values.get({ spreadsheetId: id, range: 'A1' });
    const v3 = await drive.files.get({ fileId: id, fields: 'modifiedTime,version' });
    expect(Number(v2.data.version)).toBe(Number(v1.data.version) + 1);
    expect(Date.parse(v2.data.modifiedTime as string)).toBeGreaterThan(
      Date.parse(v1.data.modifiedTime as string),
    );
    expect(v3.data).toEqual(v2.data);

    const listed = await drive.files.list({
      q: "mimeType='application/vnd.google-apps.spreadsheet' and name = 'Watched' and trashed=false",
      fields: 'nextPageToken, files(id,name)',
    });
    expect(listed.data).toEqual({ files: [{ id, name: 'Watched' }] });
    await drive.files.delete({ fileId: id });
    expect(await status(drive.files.get({ fileId: id }, noRetry))).toEqual({
      status: 404,
      data: {
        error: {
          code: 404,
          message: `File not found: ${id}.`,
          errors: [
            {
              message: `File not found: ${id}.`,
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
    expect(await status(sheets.spreadsheets.get({ spreadsheetId: id }, noRetry))).toEqual({
      status: 404,
      data: { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } },
    });
  });

  it("answers Google's 400 and 403 envelopes", async () => {
    const id = await newSpreadsheet('Errors');
    expect(
      await status(sheets.spreadsheets.values.get({ spreadsheetId: id, range: 'Nope!A1' }, noRetry)),
    ).toEqual({
      status: 400,
      data: { error: { code: 400, message: 'Unable to parse range: Nope!A1', status: 'INVALID_ARGUMENT' } },
    });
    const outside = await status(
      sheets.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!AA1' }, noRetry),
    );
    expect(outside.data).toEqual({
      error: {
        code: 400,
        message: 'Range (Sheet1!AA1) exceeds grid limits. Max rows: 1000, max columns: 26',
        status: 'INVALID_ARGUMENT',
      },
    });
    const noOption = await status(
      sheets.spreadsheets.values.update(
        { spreadsheetId: id, range: 'A1', requestBody: { values: [[1]] } },
        noRetry,
      ),
    );
    expect(noOption.data).toEqual({
      error: {
        code: 400,
        message: "'valueInputOption' is required but not specified",
        status: 'INVALID_ARGUMENT',
      },
    });
    const tooWide = await status(
      sheets.spreadsheets.values.update(
        {
          spreadsheetId: id,
          range: 'Sheet1!A1:B1',
          valueInputOption: 'RAW',
          requestBody: { values: [[1, 2, 3]] },
        },
        noRetry,
      ),
    );
    expect((tooWide.data as { error: { message: string } }).error.message).toBe(
      'Requested writing within range [Sheet1!A1:B1], but tried writing to column [C]',
    );
    fake.store.denied.add(id);
    expect(await status(sheets.spreadsheets.get({ spreadsheetId: id }, noRetry))).toEqual({
      status: 403,
      data: {
        error: { code: 403, message: 'The caller does not have permission', status: 'PERMISSION_DENIED' },
      },
    });
  });
});
