/**
 * A tab's baseline is its last checkpoint plus the row edits recorded after it. Through the real
 * recorder and a real database (SQLite in a data dir, PostgreSQL on the test cluster): after any sequence of
 * recorded versions (edits, inserts, deletes, moves, a header change), what is loaded afresh equals the last
 * version; a write to a big tab stores its changed rows only (the checkpoint stays as it was), and a checkpoint
 * is taken again once the entries grow many.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeRecorder } from '../../server/changes/recorder.ts';
import { tabContent } from '../../server/changes/recording-plan.ts';
import type { CellValue, SpreadsheetSnapshot } from '../../server/sources/source.ts';
import { DEFAULT_EVENT_RULES } from '../../server/webhooks/events.ts';
import { CHANGE_STORE_KINDS, type ChangeStores, openChangeStores } from '../helpers/change-stores.ts';
import { editRows, type RowEdit } from '../helpers/row-edits.ts';

type Row = CellValue[];
const open: ChangeStores[] = [];
afterEach(async () => {
  for (const stores of open.splice(0)) await stores.close();
});

function recorderOn(stores: ChangeStores) {
  let now = 1_700_000_000_000;
  return new ChangeRecorder({
    recording: stores.changeRecording,
    now: () => now++,
    rules: DEFAULT_EVENT_RULES,
    onQueued: () => {},
  });
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

describe.each(CHANGE_STORE_KINDS)('a baseline in %s: checkpoint + row edits', (kind) => {
  it('loads as the last recorded version after any sequence of changes', async () => {
    const stores = await openChangeStores(kind);
    open.push(stores);
    const recorder = recorderOn(stores);
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 8 }),
        fc.array(fc.array(op, { maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        fc.nat({ max: 5 }),
        async (first, steps, renameAt) => {
          // A spreadsheet of its own per run: nothing recorded before.
          const id = `wb_${++runs}`;
          let header = ['A', 'B', 'C'];
          let rows = first;
          let before = snapshot(header, rows);
          await recorder.record(id, null, before);
          for (const [i, ops] of steps.entries()) {
            if (i === renameAt) header = ['A', 'B2', 'C'];
            rows = edit(rows, ops);
            const after = snapshot(header, rows);
            await recorder.record(id, before, after);
            before = after;
          }
          const loaded = (await stores.baselines.load(id)).get('1')!;
          expect(loaded.header).toEqual(header);
          expect(loaded.typed).toEqual(rows);
          expect(loaded.sourceVersion).toBe(before.version);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('stores only the changed rows of a write to a big tab, and a new checkpoint once the edits grow many', async () => {
    const stores = await openChangeStores(kind);
    open.push(stores);
    const recorder = recorderOn(stores);
    // What is stored, not what loads: the same query on either schema.
    const stored = async () =>
      (
        await stores.rows<{ content: Buffer; redo_entries: number }>(
          `SELECT p.content, b.redo_entries FROM tab_baselines b JOIN tab_checkpoints c USING (spreadsheet_id, source_sheet_id)
             JOIN checkpoint_parts p USING (checkpoint_id)
           WHERE b.spreadsheet_id = 'wb_1' ORDER BY p.part`,
        )
      )[0]!;
    const header = ['Id', 'Name'];
    let rows: Row[] = Array.from({ length: 8_000 }, (_, i) => [i, `n${i}`]);
    let before = snapshot(header, rows);
    await recorder.record('wb_1', null, before);
    const checkpoint = (await stored()).content;

    for (let i = 0; i < 10; i++) {
      rows = [...rows, [100_000 + i, 'appended']];
      const after = snapshot(header, rows);
      await recorder.record('wb_1', before, after);
      before = after;
    }
    expect((await stored()).content.equals(checkpoint)).toBe(true);
    expect((await stored()).redo_entries).toBe(10);

    // More than a quarter of the rows changed since the checkpoint (8,000 / 4): a new checkpoint.
    rows = rows.map((r, i) => (i < 2_100 ? [r[0]!, 'renamed'] : r));
    const after = snapshot(header, rows);
    await recorder.record('wb_1', before, after);
    expect((await stored()).redo_entries).toBe(0);
    expect((await stored()).content.equals(checkpoint)).toBe(false);
    expect((await stores.baselines.load('wb_1')).get('1')!.typed).toEqual(rows);
  });

  it('checkpoints again at a first sight that finds its decoded baseline unchanged, so the next one decodes nothing', async () => {
    const stores = await openChangeStores(kind);
    open.push(stores);
    const recorder = recorderOn(stores);
    const stored = async () =>
      (
        await stores.rows<{ redo_entries: number; source_version: string }>(
          "SELECT redo_entries, source_version FROM tab_baselines WHERE spreadsheet_id = 'wb_1'",
        )
      )[0]!;
    const header = ['Id', 'Name'];
    const rows: Row[] = Array.from({ length: 8_000 }, (_, i) => [i, `n${i}`]);
    const first = snapshot(header, rows);
    await recorder.record('wb_1', null, first);
    const written = snapshot(header, [...rows, [8_000, 'appended']]);
    await recorder.record('wb_1', first, written);
    expect(await stored()).toEqual({ redo_entries: 1, source_version: written.version });

    // A start: the file read again holds what was recorded last, under its own version (a copy, a touch).
    const reread = snapshot(
      header,
      written.tabs[0]!.typed.map((r) => [...r]),
    );
    const current = { version: reread.version, tabs: new Map([['1', tabContent(reread.tabs[0]!)]]) };
    const restored = (await stores.baselines.load('wb_1', current)).get('1')!;
    expect(restored.typed).not.toBe(current.tabs.get('1')!.typed);
    await recorder.record('wb_1', null, reread);
    expect(await stored()).toEqual({ redo_entries: 0, source_version: reread.version });
    // Nothing changed in the spreadsheet: no entry beside the append's.
    expect(await stores.rows("SELECT 1 FROM change_log WHERE spreadsheet_id = 'wb_1'")).toHaveLength(1);

    // The next start checks the new checkpoint against what it read: the read's own rows stand for it.
    const again = (await stores.baselines.load('wb_1', current)).get('1')!;
    expect(again.typed).toBe(current.tabs.get('1')!.typed);
  });
});
