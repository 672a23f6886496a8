/**
 * A checkpoint is stored in parts (repositories/rules/checkpoint-parts.ts), through the real recorder and a real
 * database (SQLite in a data dir, PostgreSQL on the test cluster): a tab whose checkpoint is over a part is
 * stored in several, read back whole; a new checkpoint's parts replace the old one's, which go; parts no
 * checkpoint links are dropped once an hour old, never younger (another holder may be about to link them); a
 * checkpoint removed takes its parts along. SQLite's migration 13 moves a checkpoint stored whole into one part.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeRecorder } from '../../server/changes/recorder.ts';
import { PART_BYTES } from '../../server/repositories/rules/baseline-format.ts';
import type { CellValue, SpreadsheetSnapshot } from '../../server/sources/source.ts';
import { MIGRATIONS } from '../../server/store/migrations.ts';
import { DEFAULT_EVENT_RULES } from '../../server/webhooks/events.ts';
import { CHANGE_STORE_KINDS, type ChangeStores, openChangeStores } from '../helpers/change-stores.ts';

const open: ChangeStores[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const stores of open.splice(0)) await stores.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const HOUR = 60 * 60 * 1000;
const now = 1_700_000_000_000;
let versions = 0;

function snapshot(rows: CellValue[][]): SpreadsheetSnapshot {
  return {
    title: 't',
    version: `v${++versions}`,
    tabs: [
      { sourceSheetId: '1', name: 'T', header: ['Id', 'Text'], headerRow: 1, typed: rows, formatted: [] },
    ],
  };
}

/** Rows whose text does not compress: 60,000 of them make a checkpoint of about 2 MB. */
const bigRows = (tag: string): CellValue[][] =>
  Array.from({ length: 60_000 }, (_, i) => [i, `${tag}${randomBytes(24).toString('base64')}`]);

describe.each(CHANGE_STORE_KINDS)('checkpoints in parts, in %s', (kind) => {
  async function storesWithRecorder() {
    const stores = await openChangeStores(kind);
    open.push(stores);
    const recorder = new ChangeRecorder({
      recording: stores.changeRecording,
      now: () => now,
      rules: DEFAULT_EVENT_RULES,
      onQueued: () => {},
    });
    return { stores, recorder };
  }
  const parts = (stores: ChangeStores) =>
    stores.rows<{ checkpoint_id: string; part: number; size: number; linked: number }>(
      `SELECT p.checkpoint_id, p.part, length(p.content) AS size,
         CAST((SELECT count(*) FROM tab_checkpoints c WHERE c.checkpoint_id = p.checkpoint_id) AS INTEGER) AS linked
       FROM checkpoint_parts p ORDER BY p.checkpoint_id, p.part`,
    );

  it('stores a big checkpoint in parts of at most a part each, read back whole; a new one replaces them', async () => {
    const { stores, recorder } = await storesWithRecorder();
    const first = bigRows('a');
    const before = snapshot(first);
    await recorder.record('wb_1', null, before);
    const stored = await parts(stores);
    expect(stored.length).toBeGreaterThan(1);
    expect(new Set(stored.map((p) => p.checkpoint_id)).size).toBe(1);
    expect(stored.map((p) => p.part)).toEqual(stored.map((_, i) => i));
    for (const p of stored) {
      expect(p.size).toBeLessThanOrEqual(PART_BYTES);
      expect(p.linked).toBe(1);
    }
    expect((await stores.baselines.load('wb_1')).get('1')!.typed).toEqual(first);

    // Every row changed: a new checkpoint, whose parts replace the first one's.
    const second = bigRows('b');
    await recorder.record('wb_1', before, snapshot(second));
    const after = await parts(stores);
    expect(after.length).toBeGreaterThan(1);
    expect(after.every((p) => p.linked === 1 && p.checkpoint_id !== stored[0]!.checkpoint_id)).toBe(true);
    expect((await stores.baselines.load('wb_1')).get('1')!.typed).toEqual(second);
  });

  it('drops unlinked parts an hour old at the next checkpoint, keeps younger ones, and parts go with their checkpoint', async () => {
    const { stores, recorder } = await storesWithRecorder();
    const byte = kind === 'postgres' ? "'\\x00'::bytea" : "X'00'";
    const stray = (id: string, atMs: number) =>
      stores.rows(
        `INSERT INTO checkpoint_parts (checkpoint_id, part, content, created_at) VALUES ('${id}', 0, ${byte}, ${atMs})`,
      );
    await stray('left-long-ago', now - HOUR - 1);
    await stray('being-linked', now - 1_000);
    await recorder.record('wb_1', null, snapshot([[1, 'one']]));
    const ids = (await parts(stores)).map((p) => p.checkpoint_id);
    expect(ids).not.toContain('left-long-ago');
    expect(ids).toContain('being-linked');
    expect(ids).toHaveLength(2);

    await stores.rows("DELETE FROM tab_checkpoints WHERE spreadsheet_id = 'wb_1'");
    expect((await parts(stores)).map((p) => p.checkpoint_id)).toEqual(['being-linked']);
  });

  it('drops the parts it had stored when storing a later one fails, and the recording fails whole', async () => {
    const { stores, recorder } = await storesWithRecorder();
    // The database refuses a checkpoint's second part, as a full disk would.
    if (kind === 'postgres') {
      await stores.rows(`CREATE FUNCTION refuse_part() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN IF NEW.part = 1 THEN RAISE EXCEPTION 'no space left'; END IF; RETURN NEW; END $$`);
      await stores.rows(`CREATE TRIGGER refuse_part BEFORE INSERT ON checkpoint_parts
        FOR EACH ROW EXECUTE FUNCTION refuse_part()`);
    } else {
      await stores.rows(`CREATE TRIGGER refuse_part BEFORE INSERT ON checkpoint_parts WHEN NEW.part = 1
        BEGIN SELECT RAISE(ABORT, 'no space left'); END`);
    }
    await expect(recorder.record('wb_1', null, snapshot(bigRows('a')))).rejects.toThrow(/no space left/);
    expect(await parts(stores)).toEqual([]);
    expect((await stores.baselines.load('wb_1')).size).toBe(0);
  });
});

describe('SQLite migration 13: checkpoint parts', () => {
  it('moves each checkpoint stored whole into one part its tab links', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-mig-'));
    dirs.push(dir);
    const db = new Database(path.join(dir, 'old.db'));
    for (const m of MIGRATIONS.filter((m) => m.version < 13)) if (m.sql) db.exec(m.sql);
    const insert = db.prepare(
      'INSERT INTO tab_checkpoints (spreadsheet_id, source_sheet_id, content) VALUES (?, ?, ?)',
    );
    insert.run('wb_1', '1', Buffer.from('tab one'));
    insert.run('wb_1', '2', Buffer.from('tab two'));
    db.exec(MIGRATIONS.find((m) => m.version === 13)?.sql ?? '');
    const linked = db
      .prepare(
        `SELECT c.source_sheet_id, p.part, p.content FROM tab_checkpoints c JOIN checkpoint_parts p USING (checkpoint_id)
         ORDER BY c.source_sheet_id`,
      )
      .all() as { source_sheet_id: string; part: number; content: Buffer }[];
    expect(linked.map((r) => [r.source_sheet_id, r.part, r.content.toString()])).toEqual([
      ['1', 0, 'tab one'],
      ['2', 0, 'tab two'],
    ]);
    db.prepare("DELETE FROM tab_checkpoints WHERE source_sheet_id = '1'").run();
    expect(db.prepare('SELECT count(*) FROM checkpoint_parts').pluck().get()).toBe(1);
    db.close();
  });
});
