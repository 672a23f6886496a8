/**
 * Reading records nothing; observing does. Over real HTTP and a real .csv file: a GET serves a save made by
 * another program but leaves the change log and the baselines alone; `Spreadsheet.observe` (what the follower, the
 * webhook registration and the change feed call) records the first baseline, then the change.
 */

import { writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { writeCsv } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';
import { sqliteOf } from '../helpers/sqlite-of.ts';

let h: Harness;
afterEach(() => h?.close());

const count = (table: string, spreadsheetId: string) =>
  sqliteOf(h.context)
    .prepare(`SELECT count(*) FROM ${table} WHERE spreadsheet_id = ?`)
    .pluck()
    .get(spreadsheetId);

describe('Spreadsheet.observe', () => {
  it('is what records: a read serves the new content and records nothing', async () => {
    h = await startHarness();
    const file = await writeCsv(h.dir, 'team.csv', 'Name,Age\nAda,36\n');
    const conn = await h.connect(file);

    const first = await h.fetch(rowsPath(conn, 'team'));
    expect(await first.json()).toEqual([{ Name: 'Ada', Age: 36 }]);
    expect(count('tab_baselines', conn.spreadsheetId)).toBe(0);

    await h.context.spreadsheets.of(conn).observe();
    expect(count('tab_baselines', conn.spreadsheetId)).toBe(1);
    expect(count('change_log', conn.spreadsheetId)).toBe(0);

    // Saved by another program (a different size, so the signature moves whatever the clock's resolution).
    await writeFile(file, 'Name,Age\nAda,37\n\n');
    const read = await h.fetch(rowsPath(conn, 'team'));
    expect(await read.json()).toEqual([{ Name: 'Ada', Age: 37 }]);
    expect(count('change_log', conn.spreadsheetId)).toBe(0);

    await h.context.spreadsheets.of(conn).observe();
    const logged = sqliteOf(h.context)
      .prepare('SELECT row_index, change FROM change_log WHERE spreadsheet_id = ?')
      .all(conn.spreadsheetId);
    expect(logged).toEqual([{ row_index: 1, change: 'updated' }]);
  });

  it('asks the file once a turn for reads, and always when told it may have changed', async () => {
    h = await startHarness();
    const file = await writeCsv(h.dir, 'team.csv', 'Name,Age\nAda,36\n');
    const conn = await h.connect(file);
    const sheet = h.context.spreadsheets.of(conn);
    // The second column of each row (Age).
    const ages = async (read: Promise<{ tabs: { typed: unknown[][] }[] }>) =>
      (await read).tabs[0]!.typed.map((row) => row[1]);
    expect(await ages(sheet.read())).toEqual([36]); // the first read loads the file
    await nextTurn();
    expect(await ages(sheet.read())).toEqual([36]); // this one finds it unchanged, for the turn

    // Saved by another program in the same turn as a read: the turn's reads arrived with that read, so they
    // may take the copy it checked; the next turn's read sees the save.
    writeFileSync(file, 'Name,Age\nAda,37\n\n');
    expect(await ages(sheet.read())).toEqual([36]);
    await nextTurn();
    expect(await ages(sheet.read())).toEqual([37]);

    // Whoever is told of a change (a file watch, a poll: observe) asks the file whatever this turn's reads did.
    await nextTurn();
    expect(await ages(sheet.read())).toEqual([37]); // unchanged, for the turn
    writeFileSync(file, 'Name,Age\nAda,38\n\n\n');
    expect(await ages(sheet.observe())).toEqual([38]);
    expect(await ages(sheet.read())).toEqual([38]);
  });
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
