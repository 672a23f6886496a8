// The fake refuses, as Google does, any change that would grow a spreadsheet's grids past 10,000,000 cells,
// and changes nothing then; writes inside the grid a full spreadsheet has are taken.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeClient, startFakeClient } from './fake-client.ts';
import { seedFile } from './google-sheets/admin-routes.ts';

let client: FakeClient;

beforeAll(async () => {
  client = await startFakeClient();
});
afterAll(() => client.fake.close());

const call: FakeClient['call'] = (method, path, body) => client.call(method, path, body);

describe('Google fake: 10,000,000 cells per spreadsheet', () => {
  it('refuses a row inserted into a full spreadsheet and takes a write into its empty rows', async () => {
    const { id } = seedFile(client.fake.store, {
      name: 'Full',
      sheets: [
        { title: 'Log', rowCount: 4, columnCount: 10 },
        { title: 'Other', rowCount: 999_996, columnCount: 10 },
      ],
    });
    const version = client.fake.store.get(id)?.version;
    const append = await call(
      'POST',
      `/v4/spreadsheets/${id}/values/Log!A2:append?valueInputOption=RAW&insertDataOption=INSERT_ROWS`,
      { values: [['x']] },
    );
    expect(append.status).toBe(400);
    expect(append.json.error.message).toBe(
      'This action would increase the number of cells in the workbook above the limit of 10000000 cells.',
    );
    const grown = await call('POST', `/v4/spreadsheets/${id}:batchUpdate`, {
      requests: [{ appendDimension: { sheetId: 0, dimension: 'COLUMNS', length: 1 } }],
    });
    expect(grown.status).toBe(400);
    expect(client.fake.store.get(id)?.version).toBe(version);

    const inside = await call('PUT', `/v4/spreadsheets/${id}/values/Log!A4?valueInputOption=RAW`, {
      values: [['y']],
    });
    expect(inside.status).toBe(200);
  });
});
