/**
 * Baselines restored for a first sight (repositories/rules/baseline-restore.ts), from blobs in the stored format:
 * a checkpoint stored from the version read now and holding the same content stands for it as that very content
 * (nothing decoded, so the plan has nothing to diff), while a checkpoint of another version, one with row edits
 * after it, or one that differs (an engine reading the same file differently) is decoded and restored as stored.
 * `checkpointHolds` compares rows as the row diff does (a stored -0 is the 0 read), and says false at any difference,
 * first or last in a stored frame of rows.
 */
import { describe, expect, it } from 'vitest';
import type { TabContent } from '../../server/repositories/baselines.ts';
import {
  checkpointHolds,
  encodeCheckpoint,
  encodeCheckpointPaced,
  encodeRedo,
} from '../../server/repositories/rules/baseline-format.ts';
import { restoreBaselinesPaced } from '../../server/repositories/rules/baseline-restore.ts';

const rows = (count: number) =>
  Array.from({ length: count }, (_, i) => [i, `r${i}`, i % 3 === 0 ? null : i % 2 === 0]);
const tab = (typed = rows(5_000)): TabContent => ({ name: 'Orders', header: ['n', 'text', 'flag'], typed });

describe('checkpointHolds', () => {
  it('says true for the same content, and false at any difference', async () => {
    const content = tab();
    const blob = await encodeCheckpointPaced(content);
    expect(await checkpointHolds(blob, tab())).toBe(true);
    // A row shorter by its empty cells is the same row, as the diff has it.
    const padded = tab(rows(5_000).map((r) => (r[2] === null ? r.slice(0, 2) : r)));
    expect(await checkpointHolds(blob, padded)).toBe(true);

    // The stored rows' frames hold 2,000 rows each: a difference first or last in one, or in the last, is seen.
    for (const at of [0, 1_999, 2_000, 4_321, 4_999]) {
      const cell = rows(5_000);
      cell[at]![1] = 'changed';
      expect(await checkpointHolds(blob, tab(cell))).toBe(false);
    }
    // The same values held another way (-0 stored, 0 read: other bytes) are the same rows, as the diff has it.
    const withZero = (zero: number) =>
      tab(rows(5_000).map((r, i) => (i === 2_500 ? [zero, r[1]!, r[2]!] : r)));
    expect(await checkpointHolds(await encodeCheckpointPaced(withZero(-0)), withZero(0))).toBe(true);
    expect(await checkpointHolds(blob, tab(rows(4_999)))).toBe(false);
    expect(await checkpointHolds(blob, tab(rows(5_001)))).toBe(false);
    expect(await checkpointHolds(blob, { ...tab(), name: 'Renamed' })).toBe(false);
    expect(await checkpointHolds(blob, { ...tab(), header: ['n', 'text', 'other'] })).toBe(false);
  });

  it('says null for what is not a readable checkpoint', async () => {
    expect(await checkpointHolds([encodeRedo([])], tab())).toBeNull();
    expect(await checkpointHolds([Buffer.from('not gzip')], tab())).toBeNull();
  });
});

describe('restoreBaselinesPaced with what was just read', () => {
  const stored = tab();
  const blob = encodeCheckpoint(stored);
  const checkpoint = { source_sheet_id: '1', parts: blob, source_version: 'v1' };

  it('restores an unchanged tab of the same version as the content read, without decoding it', async () => {
    const read = tab();
    const out = await restoreBaselinesPaced([checkpoint], [], {
      version: 'v1',
      tabs: new Map([['1', read]]),
    });
    expect(out.get('1')?.typed).toBe(read.typed);
    expect(out.get('1')?.sourceVersion).toBe('v1');
  });

  it('decodes the stored rows for another version, a tab edited since, or content read differently', async () => {
    const read = tab(rows(5_000).map((r, i) => (i === 7 ? [7, 'read differently', r[2]!] : r)));
    const cases = [
      { version: 'v2', redo: [] },
      { version: 'v1', redo: [{ source_sheet_id: '1', content: encodeRedo([]) }] },
      { version: 'v1', redo: [] },
    ];
    for (const { version, redo } of cases) {
      const out = await restoreBaselinesPaced([checkpoint], redo, { version, tabs: new Map([['1', read]]) });
      expect(out.get('1')?.typed).not.toBe(read.typed);
      expect(out.get('1')?.typed).toEqual(stored.typed);
    }
    // Without what was read, as before.
    expect((await restoreBaselinesPaced([checkpoint], []))?.get('1')?.typed).toEqual(stored.typed);
  });
});
