/**
 * A recorded change is its change-log entries, its notifications and the tab's baseline, together or not at all.
 * Through real HTTP, a real workbook and the real SQLite file: a failure inside the recording transaction (a
 * trigger in the database refuses one of its inserts, the way a full disk or a broken file would fail it) leaves
 * no entry, no delivery and the baseline as it was; the write is undone and answered 500, and the next write
 * records normally. SQLite only: it refuses inserts with an SQLite trigger through the service's own database;
 * PostgreSQL's recording is held to the same rule in test/store-pg/recording.test.ts.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { fileHash, writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';
import { recordedState } from '../helpers/recorded-state.ts';
import { sqliteOf } from '../helpers/sqlite-of.ts';
import { webhookOnTab } from '../helpers/webhook-to-receiver.ts';

let h: Harness;
afterEach(() => h?.close());

const append = (conn: Parameters<typeof rowsPath>[0], name: string) =>
  h.fetch(rowsPath(conn, 'People'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Name: name, Age: 52 }),
  });

describe('the recording transaction', () => {
  // The outbox is written after the change log; the baseline's row edits come last.
  for (const table of ['deliveries', 'baseline_redo']) {
    it(`a failure inserting into ${table} records nothing of the change`, async () => {
      h = await startHarness();
      const file = await writePeopleWorkbook(h.dir);
      const conn = await h.connect(file);
      await webhookOnTab(h.context, conn, 'https://hooks.example.com/in');
      expect((await append(conn, 'Dee')).status).toBe(201);
      const before = recordedState(sqliteOf(h.context));
      const fileBefore = await fileHash(file);

      sqliteOf(h.context).exec(
        `CREATE TRIGGER refuse BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'refused for the test'); END`,
      );
      const refused = await append(conn, 'Eve');
      expect(refused.status).toBe(500);
      expect((await refused.json()).error.code).toBe('internal_error');
      expect(recordedState(sqliteOf(h.context))).toEqual(before);
      expect(await fileHash(file)).toBe(fileBefore);

      sqliteOf(h.context).exec('DROP TRIGGER refuse');
      expect((await append(conn, 'Fay')).status).toBe(201);
      const after = recordedState(sqliteOf(h.context));
      expect(after.changeLog).toHaveLength(before.changeLog.length + 1);
      expect(
        after.deliveries.slice(before.deliveries.length).map((d) => JSON.parse(d.payload)),
      ).toMatchObject([{ event: 'row.inserted', changed_rows: [{ row_index: 8, after: { Name: 'Fay' } }] }]);
      expect(after.redo).toHaveLength(before.redo.length + 1);
    });
  }
});
