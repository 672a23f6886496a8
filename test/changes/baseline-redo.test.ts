/**
 * A tab's baseline is its last checkpoint plus the row edits recorded after it. Through the real
 * recorder and a real SQLite file: after any sequence of recorded versions (edits, inserts, deletes, moves, a
 * header change), what a fresh process loads equals the last version; a write to a big tab stores its changed
 * rows only (the checkpoint stays as it was), and a checkpoint is taken again once the entries grow many.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeRecorder } from '../../server/changes/recorder.ts';
import type { CellValue, SpreadsheetSnapshot } from '../../server/sources/source.ts';
import { SqliteBaselines } from '../../server/store/baselines.ts';
import { SqliteChangeLog } from '../../server/store/change-log.ts';
import { SqliteChangeRecording } from '../../server/store/change-recording.ts';
import { openDatabase } from '../../server/store/db.ts';
import { DEFAULT_EVENT_RULES } from '../../server/webhooks/events.ts';
import { editRows, type RowEdit } from '../helpers/row-edits.ts';

type Row = CellValue[];
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openRecorder(dir: string) {
  const db = openDatabase(dir);
  let now = 1_700_000_000_000;
  const baselines = new SqliteBaselines(db);
  const recorder = new ChangeRecorder({
    recording: new SqliteChangeRecording(db, baselines, new SqliteChangeLog(db)),
    now: () => now++,
    rules: DEFAULT_EVENT_RULES,
    onQueued: () => {},
  });
  return { db, baselines, recorder };
}

let versions = 0;
function snapshot(header: string[], rows: Row[]): SpreadsheetSnapshot {
  return {
    title: 't',
    version: `v${++versions}`,
    tabs: [{ sourceSheetId: '1', name: 'T', header, headerRow: 1, typed: rows, formatted: [] }],
  };
}

const cell = fc.constantFrom<CellValue>(null, 'a', 'b', 'c', 1, 2, 2.5, true, false);
const width = 3;
const row = fc.array(cell, { minLength: width, maxLength: width });
type Op = Extract<RowEdit, { t: 'insert' | 'delete' | 'update' | 'move' }>;
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant('insert' as const), at: fc.nat(), row }),
  fc.record({ t: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ t: fc.constant('update' as const), at: fc.nat(), row }),
  fc.record({ t: fc.constant('move' as const), at: fc.nat(), to: fc.nat() }),
);

const edit = editRows;

describe('a baseline: checkpoint + row edits', () => {
  it('loads as the last recorded version after any sequence of changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 8 }),
        fc.array(fc.array(op, { maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        fc.nat({ max: 5 }),
        async (first, steps, renameAt) => {
          const dir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-redo-'));
          dirs.push(dir);
          const { db, recorder, baselines } = openRecorder(dir);
          try {
            let header = ['A', 'B', 'C'];
            let rows = first;
            let before = snapshot(header, rows);
            await recorder.record('wb_1', null, before);
            for (const [i, ops] of steps.entries()) {
              if (i === renameAt) header = ['A', 'B2', 'C'];
              rows = edit(rows, ops);
              const after = snapshot(header, rows);
              await recorder.record('wb_1', before, after);
              before = after;
            }
            const loaded = baselines.loadNow('wb_1').get('1')!;
            expect(loaded.header).toEqual(header);
            expect(loaded.typed).toEqual(rows);
            expect(loaded.sourceVersion).toBe(before.version);
          } finally {
            db.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('stores only the changed rows of a write to a big tab, and a new checkpoint once the edits grow many', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-redo-'));
    dirs.push(dir);
    const { db, recorder, baselines } = openRecorder(dir);
    const stored = () =>
      db
        .prepare(
          `SELECT c.content, b.redo_entries FROM tab_baselines b JOIN tab_checkpoints c USING (spreadsheet_id, source_sheet_id)
           WHERE b.spreadsheet_id = 'wb_1'`,
        )
        .get() as {
        content: Buffer;
        redo_entries: number;
      };
    try {
      const header = ['Id', 'Name'];
      let rows: Row[] = Array.from({ length: 8_000 }, (_, i) => [i, `n${i}`]);
      let before = snapshot(header, rows);
      await recorder.record('wb_1', null, before);
      const checkpoint = stored().content;

      for (let i = 0; i < 10; i++) {
        rows = [...rows, [100_000 + i, 'appended']];
        const after = snapshot(header, rows);
        await recorder.record('wb_1', before, after);
        before = after;
      }
      expect(stored().content.equals(checkpoint)).toBe(true);
      expect(stored().redo_entries).toBe(10);

      // More than a quarter of the rows changed since the checkpoint (8,000 / 4): a new checkpoint.
      rows = rows.map((r, i) => (i < 2_100 ? [r[0]!, 'renamed'] : r));
      const after = snapshot(header, rows);
      await recorder.record('wb_1', before, after);
      expect(stored().redo_entries).toBe(0);
      expect(stored().content.equals(checkpoint)).toBe(false);
      expect(baselines.loadNow('wb_1').get('1')!.typed).toEqual(rows);
    } finally {
      db.close();
    }
  });
});
