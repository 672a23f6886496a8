// A tab's gridProperties as Google keeps them: every field an updateSheetProperties (per its `fields` mask, `*`
// included) or addSheet request sets is returned by spreadsheets.get afterwards, and a field at its default (a
// frozen count of 0, a flag that is false) is left out, as in the recorded answers (WorksheetTest.test_freeze).
// Through Google's own Node client over HTTP.
import type { sheets as sheetsApi } from '@googleapis/sheets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleClients } from '../helpers/google.ts';
import { type FakeGoogle, startFakeGoogle } from './google-sheets/server.ts';

let fake: FakeGoogle;
let sheets: ReturnType<typeof sheetsApi>;

beforeAll(async () => {
  fake = await startFakeGoogle();
  ({ sheets } = googleClients(fake, { retry: false }));
});
afterAll(() => fake.close());

type Json = Record<string, unknown>;

async function newSpreadsheet(): Promise<string> {
  const created = await sheets.spreadsheets.create({ requestBody: { properties: { title: 'Grid' } } });
  return created.data.spreadsheetId as string;
}

async function update(spreadsheetId: string, properties: Json, fields: string): Promise<void> {
  await sheets.spreadsheets.batchUpdate({
    spreadsheetId,
    requestBody: {
      requests: [{ updateSheetProperties: { properties: { sheetId: 0, ...properties }, fields } }],
    },
  });
}

/** Each tab's gridProperties, as spreadsheets.get answers them. */
async function gridOf(spreadsheetId: string): Promise<unknown[]> {
  const got = await sheets.spreadsheets.get({ spreadsheetId });
  return (got.data.sheets ?? []).map((s) => s.properties?.gridProperties);
}

const EVERY_FIELD = {
  rowCount: 40,
  columnCount: 8,
  frozenRowCount: 2,
  frozenColumnCount: 1,
  hideGridlines: true,
  rowGroupControlAfter: true,
  columnGroupControlAfter: true,
};

describe('gridProperties a request sets are returned afterwards', () => {
  it('updateSheetProperties: each field its mask names, and only those', async () => {
    const id = await newSpreadsheet();
    await update(
      id,
      { gridProperties: { hideGridlines: true, rowGroupControlAfter: true, frozenRowCount: 3 } },
      'gridProperties.hideGridlines,gridProperties/rowGroupControlAfter',
    );
    expect(await gridOf(id)).toEqual([
      { rowCount: 1000, columnCount: 26, hideGridlines: true, rowGroupControlAfter: true },
    ]);
    await update(
      id,
      { gridProperties: { columnGroupControlAfter: true, frozenColumnCount: 2 } },
      'gridProperties.columnGroupControlAfter,gridProperties.frozenColumnCount',
    );
    expect(await gridOf(id)).toEqual([
      {
        rowCount: 1000,
        columnCount: 26,
        frozenColumnCount: 2,
        hideGridlines: true,
        rowGroupControlAfter: true,
        columnGroupControlAfter: true,
      },
    ]);
  });

  it('a mask of `*` or of the whole gridProperties sets every field, defaults where the request gives none', async () => {
    const id = await newSpreadsheet();
    await update(id, { title: 'All', index: 0, gridProperties: EVERY_FIELD }, '*');
    expect(await gridOf(id)).toEqual([EVERY_FIELD]);

    // The whole message named: what the request leaves out goes back to its default, and leaves the answer.
    await update(
      id,
      { gridProperties: { rowCount: 50, columnCount: 9, hideGridlines: true } },
      'gridProperties',
    );
    expect(await gridOf(id)).toEqual([{ rowCount: 50, columnCount: 9, hideGridlines: true }]);
  });

  it('a flag set false and a count set 0 are left out, as Google leaves defaults out', async () => {
    const id = await newSpreadsheet();
    await update(id, { gridProperties: EVERY_FIELD }, 'gridProperties');
    await update(
      id,
      {
        gridProperties: {
          frozenRowCount: 0,
          frozenColumnCount: 0,
          hideGridlines: false,
          rowGroupControlAfter: false,
          columnGroupControlAfter: false,
        },
      },
      'gridProperties.frozenRowCount,gridProperties.frozenColumnCount,gridProperties.hideGridlines,' +
        'gridProperties.rowGroupControlAfter,gridProperties.columnGroupControlAfter',
    );
    expect(await gridOf(id)).toEqual([{ rowCount: 40, columnCount: 8 }]);
  });

  it('addSheet and spreadsheets.create keep every field given, in the reply and in spreadsheets.get', async () => {
    const id = await newSpreadsheet();
    const added = await sheets.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        requests: [{ addSheet: { properties: { title: 'Frozen', gridProperties: EVERY_FIELD } } }],
      },
    });
    expect(added.data.replies?.[0]?.addSheet?.properties?.gridProperties).toEqual(EVERY_FIELD);
    expect(await gridOf(id)).toEqual([{ rowCount: 1000, columnCount: 26 }, EVERY_FIELD]);

    const created = await sheets.spreadsheets.create({
      requestBody: {
        properties: { title: 'Made so' },
        sheets: [
          {
            properties: {
              title: 'One',
              gridProperties: { rowCount: 5, columnCount: 3, hideGridlines: true },
            },
          },
        ],
      },
    });
    const madeId = created.data.spreadsheetId as string;
    expect(created.data.sheets?.[0]?.properties?.gridProperties).toEqual({
      rowCount: 5,
      columnCount: 3,
      hideGridlines: true,
    });
    expect(await gridOf(madeId)).toEqual([{ rowCount: 5, columnCount: 3, hideGridlines: true }]);
  });

  it('a field mask on spreadsheets.get picks them like any other field', async () => {
    const id = await newSpreadsheet();
    await update(id, { gridProperties: EVERY_FIELD }, 'gridProperties');
    const got = await sheets.spreadsheets.get({
      spreadsheetId: id,
      fields: 'sheets.properties.gridProperties(hideGridlines,frozenRowCount)',
    });
    expect(got.data).toEqual({
      sheets: [{ properties: { gridProperties: { frozenRowCount: 2, hideGridlines: true } } }],
    });
  });
});
