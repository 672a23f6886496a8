/**
 * A baseline is restored from its own stored format, never from the change feed's JSON. Real SQLite in a temp
 * data dir, a real .csv file saved by another program while SheetPort is stopped: the stored checkpoint and row
 * edits carry format 1; the feed's stored JSON changes shape while stopped, and the next start still finds
 * exactly the edit made meanwhile, once (a second look and a second start find nothing more).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceContext, type SqliteServiceContext } from '../../server/context.ts';
import { BASELINE_FORMAT } from '../../server/repositories/rules/baseline-format.ts';
import { DB_FILE_NAME } from '../../server/store/db.ts';
import { connectFile } from '../helpers/fixtures.ts';
import { recordedState } from '../helpers/recorded-state.ts';
import { webhookOnTab } from '../helpers/webhook-to-receiver.ts';

let dir: string;
const open: SqliteServiceContext[] = [];
afterEach(async () => {
  for (const context of open.splice(0)) await context.close();
  await rm(dir, { recursive: true, force: true });
});

function start(dataDir: string): SqliteServiceContext {
  const context = createServiceContext({ dataDir, log: () => {} });
  open.push(context);
  return context;
}

async function stop(context: SqliteServiceContext): Promise<void> {
  open.splice(open.indexOf(context), 1);
  await context.close();
}

/** The head of a stored blob: "SPB", the format version, the kind (C checkpoint, R row edits). */
function blobHead(content: Buffer): string {
  const bytes = gunzipSync(content);
  return `${bytes.subarray(0, 3).toString('latin1')}${bytes[3]}${String.fromCharCode(bytes[4]!)}`;
}

describe('a baseline across a restart', () => {
  it('is stored in its own format and restored without the feed: an edit made while stopped is found once', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-restart-'));
    const dataDir = path.join(dir, 'data');
    const file = path.join(dir, 'team.csv');
    await writeFile(file, 'Name,Age\nAda,36\nBob,41\n');

    const first = start(dataDir);
    const conn = await connectFile(first.connections, file);
    const { sourceSheetId } = await webhookOnTab(first, conn, 'https://hooks.example.com/in', {
      sheetName: 'team',
    });
    await first.spreadsheets
      .of(conn)
      .write(sourceSheetId, [{ op: 'append', values: { Name: 'Cy', Age: 50 } }], {
        allowFormulas: false,
        userEntered: false,
      });
    const stored = recordedState(first.db);
    expect(stored.checkpoints.map((c) => blobHead(c.content))).toEqual([`SPB${BASELINE_FORMAT}C`]);
    expect(stored.redo.map((r) => blobHead(r.content))).toEqual([`SPB${BASELINE_FORMAT}R`]);
    expect(stored.deliveries).toHaveLength(1);
    await stop(first);

    // While stopped: the feed's stored JSON takes another shape, and another program saves an edit.
    const raw = new Database(path.join(dataDir, DB_FILE_NAME));
    raw.prepare(`UPDATE change_log SET row_values = json_object('shape', 'another')`).run();
    raw.close();
    await writeFile(file, 'Name,Age\nAda,36\nBob,42\nCy,50\n');

    const second = start(dataDir);
    await second.spreadsheets.of(conn).observe();
    await second.spreadsheets.of(conn).observe();
    const seen = recordedState(second.db);
    const added = seen.deliveries.slice(stored.deliveries.length).map((d) => JSON.parse(d.payload));
    expect(added).toMatchObject([
      { event: 'row.updated', changed_rows: [{ row_index: 2, before: { Age: 41 }, after: { Age: 42 } }] },
    ]);
    expect(added[0].changed_rows).toHaveLength(1);
    expect(seen.changeLog).toHaveLength(stored.changeLog.length + 1);
    await stop(second);

    const third = start(dataDir);
    await third.spreadsheets.of(conn).observe();
    expect(recordedState(third.db).deliveries).toHaveLength(seen.deliveries.length);
    expect(recordedState(third.db).changeLog).toHaveLength(seen.changeLog.length);
  });
});
