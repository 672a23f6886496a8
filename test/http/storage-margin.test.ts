/**
 * A write the data dir could not record is refused before the spreadsheet takes it, for every kind (a workbook
 * file, a Google spreadsheet on the Sheets fake): the service runs with a free-space margin larger than any disk
 * has (its configuration's `minFreeBytes`, SHEETPORT_MIN_FREE_MB), so the real free-space check (statfs of the data dir) says "no room". Every
 * write form answers 507 `insufficient_storage` in the error envelope and the spreadsheet is unchanged; reads
 * answer. (The real full disk, with the margin and without it, is test/http/full-disk.test.ts.)
 */
import { afterEach, expect, it } from 'vitest';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { forEachKind, type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

forEachKind((kind, store) => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });

  it('refuses every write with 507 before the spreadsheet takes it; reads answer', async () => {
    h = await startHarness({ kind, store, config: { minFreeBytes: 2 ** 60 } }); // an exabyte: no disk has it free
    const book = await h.connectBook(await writePeopleWorkbook(h.dir));
    const { connection } = book;
    const before = await book.fingerprint();
    const json = { 'content-type': 'application/json' };
    const sheetId = (await (await h.fetch(`/v1/spreadsheets/${connection.spreadsheetId}`)).json()).sheets[0]
      .sheet_id as string;

    const writes = [
      h.fetch(rowsPath(connection, 'People'), { method: 'POST', headers: json, body: '{"Name":"Dee"}' }),
      h.fetch(rowsPath(connection, 'People', '/1'), { method: 'PUT', headers: json, body: '{"Age":1}' }),
      h.fetch(rowsPath(connection, 'People', '/1'), { method: 'PATCH', headers: json, body: '{"Age":1}' }),
      h.fetch(rowsPath(connection, 'People', '/1'), { method: 'DELETE' }),
      h.fetch(`/v1/sheets/${encodeURIComponent(sheetId)}/rows:batchUpdate`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ mutations: [{ op: 'append', values: { Name: 'Eve' } }] }),
      }),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.status).toBe(507);
      const { error } = await res.json();
      expect(error.code).toBe('insufficient_storage');
      expect(error.request_id).toBe(res.headers.get('x-request-id'));
    }
    expect(await book.fingerprint()).toBe(before);
    const read = await h.fetch(rowsPath(connection, 'People'));
    expect(read.status).toBe(200);
    expect((await read.json())[0].Name).toBe('Ann');
  });
});
