// Edge cases of the fake's Google model, over HTTP: A1 parsing and echoing, write geometry,
// append's overwrite trap, structural errors, field masks, formulas across tabs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeClient, startFakeClient } from './fake-client.ts';

let client: FakeClient;

beforeAll(async () => {
  client = await startFakeClient();
});
afterAll(() => client.fake.close());

const call: FakeClient['call'] = (method, path, body) => client.call(method, path, body);

const enc = encodeURIComponent;

async function book(...extraTitles: string[]): Promise<string> {
  const { json } = await call('POST', '/v4/spreadsheets', { properties: { title: 'Edges' } });
  const id = json.spreadsheetId as string;
  if (extraTitles.length > 0)
    await call('POST', `/v4/spreadsheets/${id}:batchUpdate`, {
      requests: extraTitles.map((title) => ({
        addSheet: { properties: { title, gridProperties: { rowCount: 10, columnCount: 5 } } },
      })),
    });
  return id;
}

const write = (id: string, range: string, values: unknown[][], option = 'RAW') =>
  call('PUT', `/v4/spreadsheets/${id}/values/${enc(range)}?valueInputOption=${option}`, { values });
const read = (id: string, range: string, query = '') =>
  call('GET', `/v4/spreadsheets/${id}/values/${enc(range)}${query}`);

describe('Google fake: A1 notation', () => {
  it('quotes echoed titles only when needed and doubles apostrophes', async () => {
    const id = await book('D3', "It's", 'food.csv', 'my-sheet', 'TRUE');
    expect((await read(id, "'D3'")).json.range).toBe("'D3'!A1:E10");
    expect((await read(id, "'It''s'!A1:B2")).json.range).toBe("'It''s'!A1:B2");
    expect((await read(id, "'food.csv'")).json.range).toBe('food.csv!A1:E10');
    expect((await read(id, 'my-sheet!B2')).json.range).toBe("'my-sheet'!B2");
    expect((await read(id, "'TRUE'!A1")).json.range).toBe("'TRUE'!A1");
  });

  it('reads whole rows, whole columns, open ends and reversed corners, clamped to the grid', async () => {
    const id = await book('Small');
    expect((await read(id, 'Small!2:3')).json.range).toBe('Small!A2:E3');
    expect((await read(id, 'Small!B:C')).json.range).toBe('Small!B1:C10');
    expect((await read(id, 'Small!C5:A')).json.range).toBe('Small!A5:C10');
    expect((await read(id, 'Small!A1:Z99')).json.range).toBe('Small!A1:E10');
    expect((await read(id, 'Small!E10:B2')).json.range).toBe('Small!B2:E10');
  });

  it('takes a bare cell range from the first visible sheet and rejects ranges it cannot parse', async () => {
    const id = await book('Visible');
    const hide = await call('POST', `/v4/spreadsheets/${id}:batchUpdate`, {
      requests: [{ updateSheetProperties: { properties: { sheetId: 0, hidden: true }, fields: 'hidden' } }],
    });
    expect(hide.status).toBe(200);
    expect((await read(id, 'A1:B2')).json.range).toBe('Visible!A1:B2');
    for (const bad of ['Sheet1!A0', 'Nope', "'Unclosed!A1", 'Visible!1A', 'Visible!A1:B2:C3']) {
      const res = await read(id, bad);
      expect(res.status, bad).toBe(400);
      expect(res.json.error.message).toBe(`Unable to parse range: ${bad}`);
    }
  });
});

describe('Google fake: writes', () => {
  it('lets a single-cell origin run past the grid (the grid grows) but bounds a multi-cell range', async () => {
    const id = await book('Tiny');
    const grown = await write(id, 'Tiny!D9', [['a', 'b', 'c'], ['d']]);
    expect(grown.json).toMatchObject({
      updatedRange: 'Tiny!D9:F10',
      updatedRows: 2,
      updatedColumns: 3,
      updatedCells: 4,
    });
    const meta = await call(
      'GET',
      `/v4/spreadsheets/${id}?fields=${enc('sheets.properties(title,gridProperties)')}`,
    );
    expect(meta.json.sheets[1]).toEqual({
      properties: { title: 'Tiny', gridProperties: { rowCount: 10, columnCount: 6 } },
    });
    const tooTall = await write(id, 'Tiny!A1:B2', [[1], [2], [3]]);
    expect(tooTall.json.error.message).toBe(
      'Requested writing within range [Tiny!A1:B2], but tried writing to row [3]',
    );
  });

  it('values.batchUpdate is atomic and names the bad item', async () => {
    const id = await book();
    const res = await call('POST', `/v4/spreadsheets/${id}/values:batchUpdate`, {
      valueInputOption: 'RAW',
      data: [
        { range: 'Sheet1!A1', values: [['kept out']] },
        { range: 'Nope!A1', values: [['x']] },
      ],
    });
    expect(res.json).toEqual({
      error: {
        code: 400,
        message: 'Invalid data[1]: Unable to parse range: Nope!A1',
        status: 'INVALID_ARGUMENT',
      },
    });
    expect((await read(id, 'Sheet1')).json.values).toBeUndefined();
  });

  it('skips null cells, clears "" cells, and keeps other cells', async () => {
    const id = await book();
    await write(id, 'A1', [['a', 'b', 'c']]);
    const res = await write(id, 'A1', [[null, '', null]]);
    expect(res.json).toMatchObject({ updatedRange: 'Sheet1!B1', updatedCells: 1 });
    expect((await read(id, 'A1:C1')).json.values).toEqual([['a', '', 'c']]);
  });

  it('append with OVERWRITE writes over data below a gap; INSERT_ROWS would have moved it', async () => {
    const id = await book();
    await write(id, 'A1', [['h1', 'h2'], ['r1', 'x'], [], ['below', 'gap']]);
    const over = await call(
      'POST',
      `/v4/spreadsheets/${id}/values/${enc('Sheet1!A1')}:append?valueInputOption=RAW`,
      {
        values: [['n1'], ['n2']],
      },
    );
    expect(over.json.tableRange).toBe('Sheet1!A1:B2');
    expect(over.json.updates.updatedRange).toBe('Sheet1!A3:A4');
    expect((await read(id, 'A1:B4')).json.values).toEqual([['h1', 'h2'], ['r1', 'x'], ['n1'], ['n2', 'gap']]);
  });

  it('recomputes formulas when the cells they read change, across tabs', async () => {
    const id = await book('Data');
    await write(id, 'Data!A1', [[2], [3]]);
    await write(id, 'Sheet1!A1', [['=SUM(Data!A1:A2)*10']], 'USER_ENTERED');
    expect((await read(id, 'Sheet1!A1', '?valueRenderOption=UNFORMATTED_VALUE')).json.values).toEqual([[50]]);
    await write(id, 'Data!A2', [[8]]);
    expect((await read(id, 'Sheet1!A1')).json.values).toEqual([['100']]);
    await write(id, 'Sheet1!B1', [['=1/0']], 'USER_ENTERED');
    expect((await read(id, 'Sheet1!B1')).json.values).toEqual([['#DIV/0!']]);
  });
});

describe('Google fake: structural requests', () => {
  it('rejects what Google rejects, with its messages', async () => {
    const id = await book('Other');
    const batch = (request: unknown) =>
      call('POST', `/v4/spreadsheets/${id}:batchUpdate`, { requests: [request] });
    const cases: [unknown, string][] = [
      [
        { addSheet: { properties: { title: 'other' } } },
        'Invalid requests[0].addSheet: A sheet with the name "other" already exists. Please enter another name.',
      ],
      [
        {
          insertDimension: {
            range: { sheetId: 0, dimension: 'ROWS', startIndex: 0, endIndex: 1 },
            inheritFromBefore: true,
          },
        },
        'Invalid requests[0].insertDimension: Cannot inherit properties from before if inserting at the beginning of the sheet.',
      ],
      [
        { deleteDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 0, endIndex: 1000 } } },
        "Invalid requests[0].deleteDimension: You can't delete all the rows on the sheet.",
      ],
      [{ deleteSheet: { sheetId: 12345 } }, 'Invalid requests[0].deleteSheet: No grid with id: 12345'],
    ];
    for (const [request, message] of cases) {
      const res = await batch(request);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } });
    }
  });

  it('moves sheets by "before the move" index and masks fields with paths and parentheses', async () => {
    const id = await book('B', 'C');
    await call('POST', `/v4/spreadsheets/${id}:batchUpdate`, {
      requests: [{ updateSheetProperties: { properties: { sheetId: 0, index: 2 }, fields: 'index' } }],
    });
    const meta = await call(
      'GET',
      `/v4/spreadsheets/${id}?fields=${enc('properties/title,sheets(properties(title,index))')}`,
    );
    expect(meta.json).toEqual({
      properties: { title: 'Edges' },
      sheets: [
        { properties: { title: 'B', index: 0 } },
        { properties: { title: 'Sheet1', index: 1 } },
        { properties: { title: 'C', index: 2 } },
      ],
    });
  });

  it('returns grid data for ranges when asked', async () => {
    const id = await book();
    await write(id, 'B2', [['=1+1', 'x']], 'USER_ENTERED');
    const res = await call(
      'GET',
      `/v4/spreadsheets/${id}?ranges=${enc('Sheet1!B2:C2')}&includeGridData=true`,
    );
    expect(res.json.sheets[0].data).toEqual([
      {
        startRow: 1,
        startColumn: 1,
        rowData: [
          {
            values: [
              {
                userEnteredValue: { formulaValue: '=1+1' },
                effectiveValue: { numberValue: 2 },
                formattedValue: '2',
              },
              {
                userEnteredValue: { stringValue: 'x' },
                effectiveValue: { stringValue: 'x' },
                formattedValue: 'x',
              },
            ],
          },
        ],
      },
    ]);
  });
});
