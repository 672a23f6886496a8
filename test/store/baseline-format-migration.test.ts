/**
 * Migration 11 gives stored baselines their own format. A data dir as the previous version left it (schema 10:
 * a checkpoint of gzip V8 `{ name, header, typed }` plus the change log after its `checkpoint_at`, replayed from
 * the feed's JSON) is opened: the baseline is converted, so an edit saved while SheetPort was stopped is sent
 * once and nothing else is; a checkpoint that cannot be read is dropped and the tab's next look is a first
 * sight, which sends nothing. Real SQLite files and a real .csv saved by another program.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { serialize } from 'node:v8';
import { gunzipSync, gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceContext, type ServiceContext } from '../../server/context.ts';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { BASELINE_FORMAT } from '../../server/repositories/rules/baseline-format.ts';
import { DB_FILE_NAME } from '../../server/store/db.ts';
import { connectFile } from '../helpers/fixtures.ts';
import { recordedState } from '../helpers/recorded-state.ts';
import { sqliteOf } from '../helpers/sqlite-of.ts';
import { webhookOnTab } from '../helpers/webhook-to-receiver.ts';

let dir: string;
const open: ServiceContext[] = [];
afterEach(async () => {
  for (const context of open.splice(0)) await context.close();
  await rm(dir, { recursive: true, force: true });
});

const WRITE = { allowFormulas: false, userEntered: false };

/**
 * A data dir whose team.csv tab was seen as Ada/Bob, then got Cy appended through the API, stored the way
 * schema 10 stored it: the checkpoint holds Ada/Bob (old encoding), Cy lives only in the change log after it.
 */
async function previousVersionDataDir(): Promise<{ dataDir: string; file: string; conn: ConnectionRecord }> {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-migrate-'));
  const dataDir = path.join(dir, 'data');
  const file = path.join(dir, 'team.csv');
  await writeFile(file, 'Name,Age\nAda,36\nBob,41\n');
  const context = createServiceContext({ dataDir, log: () => {} });
  const conn = await connectFile(context.connections, file);
  const { sourceSheetId } = await webhookOnTab(context, conn, 'https://hooks.example.com/in', {
    sheetName: 'team',
  });
  const seen = (await context.spreadsheets.of(conn).observe()).tabs.find((t) => t.name === 'team')!;
  await context.spreadsheets
    .of(conn)
    .write(sourceSheetId, [{ op: 'append', values: { Name: 'Cy', Age: 50 } }], WRITE);
  await context.close();

  const raw = new Database(path.join(dataDir, DB_FILE_NAME));
  const old = gzipSync(serialize({ name: seen.name, header: seen.header, typed: seen.typed }));
  raw.exec(`
    DROP TRIGGER checkpoint_replaced;
    DROP TRIGGER checkpoint_removed;
    CREATE TABLE tab_checkpoints_whole (
      spreadsheet_id TEXT NOT NULL, source_sheet_id TEXT NOT NULL, content BLOB NOT NULL,
      UNIQUE (spreadsheet_id, source_sheet_id)
    );
    INSERT INTO tab_checkpoints_whole SELECT spreadsheet_id, source_sheet_id, x'' FROM tab_checkpoints;
    DROP TABLE tab_checkpoints;
    ALTER TABLE tab_checkpoints_whole RENAME TO tab_checkpoints;
    DROP TABLE checkpoint_parts;
    DROP TABLE baseline_redo;
    ALTER TABLE tab_baselines ADD COLUMN checkpoint_at INTEGER NOT NULL DEFAULT 0;
    UPDATE tab_baselines SET redo_entries = 1;
    ALTER TABLE webhooks DROP COLUMN condition;
    PRAGMA user_version = 10;
  `);
  raw.prepare('UPDATE tab_checkpoints SET content = ?').run(old);
  raw.close();
  return { dataDir, file, conn };
}

function start(dataDir: string): ServiceContext {
  const context = createServiceContext({ dataDir, log: () => {} });
  open.push(context);
  return context;
}

describe('migration 11: baselines in their own format', () => {
  it('converts a baseline of the previous format: only the edit made while stopped is sent', async () => {
    const { dataDir, file, conn } = await previousVersionDataDir();
    await writeFile(file, 'Name,Age\nAda,37\nBob,41\nCy,50\n');

    const context = start(dataDir);
    const before = recordedState(sqliteOf(context));
    const columns = sqliteOf(context)
      .prepare('SELECT name FROM pragma_table_info(?)')
      .pluck()
      .all('tab_baselines');
    expect(columns).not.toContain('checkpoint_at');
    expect(gunzipSync(before.checkpoints[0]!.content).subarray(0, 4)).toEqual(
      Buffer.from(`SPB${String.fromCharCode(BASELINE_FORMAT)}`, 'latin1'),
    );
    await context.spreadsheets.of(conn).observe();

    const added = recordedState(sqliteOf(context)).deliveries.slice(before.deliveries.length);
    expect(added.map((d) => JSON.parse(d.payload))).toMatchObject([
      { event: 'row.updated', changed_rows: [{ row_index: 1, before: { Age: 36 }, after: { Age: 37 } }] },
    ]);
    expect(JSON.parse(added[0]!.payload).changed_rows).toHaveLength(1);
  });

  it('drops a baseline it cannot read: the next look is a first sight and sends nothing', async () => {
    const { dataDir, file, conn } = await previousVersionDataDir();
    const raw = new Database(path.join(dataDir, DB_FILE_NAME));
    raw.prepare('UPDATE tab_checkpoints SET content = ?').run(gzipSync(Buffer.from('not a baseline')));
    raw.close();
    await writeFile(file, 'Name,Age\nAda,37\nBob,41\nCy,50\n');

    const context = start(dataDir);
    const before = recordedState(sqliteOf(context));
    expect(before.baselines).toEqual([]);
    expect(before.checkpoints).toEqual([]);
    await context.spreadsheets.of(conn).observe();

    const after = recordedState(sqliteOf(context));
    expect(after.deliveries).toEqual(before.deliveries);
    expect(after.changeLog).toEqual(before.changeLog);
    expect(after.checkpoints).toHaveLength(1);
    expect(gunzipSync(after.checkpoints[0]!.content).subarray(0, 4)).toEqual(
      Buffer.from(`SPB${String.fromCharCode(BASELINE_FORMAT)}`, 'latin1'),
    );
  });
});
