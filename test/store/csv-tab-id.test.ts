/**
 * A .csv connection's tab id moved from 0 to 1 (numbered like an .xlsx file's first tab); a database written
 * before keeps its webhooks, change feed and baselines, now under the new id, and .xlsx rows are untouched.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../server/store/migrations.ts';

let dir: string;
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('migration 6: csv tab id 1', () => {
  it('moves what was recorded under a .csv tab id 0 and leaves other connections alone', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-mig-'));
    const db = new Database(path.join(dir, 'old.db'));
    const before = MIGRATIONS.filter((m) => m.version < 6);
    for (const m of before) if (m.sql) db.exec(m.sql);
    const add = db.prepare(
      "INSERT INTO connections (id, user_key, name, source_kind, location, created_at) VALUES (?, ?, ?, 'workbook', ?, '2026-01-01T00:00:00Z')",
    );
    add.run('csvconn', 'u1', 'a.csv', '/x/a.CSV');
    add.run('xlsxconn', 'u2', 'b.xlsx', '/x/b.xlsx');
    const baseline = db.prepare(
      "INSERT INTO tab_baselines (spreadsheet_id, source_sheet_id, name, content, updated_at) VALUES (?, ?, 'T', ?, 0)",
    );
    baseline.run('csvconn', '0', Buffer.from('x'));
    baseline.run('xlsxconn', '0', Buffer.from('y'));

    const six = MIGRATIONS.find((m) => m.version === 6);
    db.exec(six?.sql ?? '');
    const ids = db
      .prepare('SELECT spreadsheet_id, source_sheet_id FROM tab_baselines ORDER BY spreadsheet_id')
      .all();
    expect(ids).toEqual([
      { spreadsheet_id: 'csvconn', source_sheet_id: '1' },
      { spreadsheet_id: 'xlsxconn', source_sheet_id: '0' },
    ]);
    db.close();
  });
});

describe('migration 9: checkpoint content apart', () => {
  it('moves each baseline content to tab_checkpoints, and a tab keeps its content and small columns', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-mig-'));
    const db = new Database(path.join(dir, 'old.db'));
    for (const m of MIGRATIONS.filter((m) => m.version < 9)) if (m.sql) db.exec(m.sql);
    db.prepare(
      `INSERT INTO tab_baselines (spreadsheet_id, source_sheet_id, name, content, updated_at, source_version, checkpoint_at, redo_entries)
       VALUES ('wb_1', '1', 'T', ?, 5, 'v1', 7, 3)`,
    ).run(Buffer.from('the whole tab'));
    db.exec(MIGRATIONS.find((m) => m.version === 9)?.sql ?? '');
    expect(db.prepare('SELECT * FROM tab_baselines').all()).toEqual([
      {
        spreadsheet_id: 'wb_1',
        source_sheet_id: '1',
        name: 'T',
        updated_at: 5,
        source_version: 'v1',
        checkpoint_at: 7,
        redo_entries: 3,
      },
    ]);
    const moved = db
      .prepare('SELECT spreadsheet_id, source_sheet_id, content FROM tab_checkpoints')
      .all() as {
      content: Buffer;
    }[];
    expect(moved).toHaveLength(1);
    expect(moved[0]).toMatchObject({ spreadsheet_id: 'wb_1', source_sheet_id: '1' });
    expect(moved[0]?.content.toString()).toBe('the whole tab');
    db.close();
  });
});
