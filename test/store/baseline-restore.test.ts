/**
 * Baselines restored for a first sight (repositories/rules/baseline-restore.ts), from blobs in the stored format:
 * a checkpoint stored from the version read now and holding the same content stands for it as that very content
 * (nothing decoded, so the plan has nothing to diff), while a checkpoint of another version, one with row edits
 * after it, or one that differs (an engine reading the same file differently) is decoded and restored as stored.
 * `checkpointHolds` compares rows as the row diff does (a stored -0 is the 0 read), and says false at any difference,
 * first or last in a stored frame of rows. A checkpoint made from a read that names what it read (its identity,
 * sources/read-identity.ts) holds content read under the same name without its rows being read.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TabContent } from '../../server/repositories/baselines.ts';
import {
  checkpointHolds,
  encodeCheckpoint,
  encodeCheckpointPaced,
  encodeRedo,
  type Parts,
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

  it('takes a checkpoint made from a read with the same name as holding its rows, without reading them', async () => {
    const blob = await encodeCheckpointPaced({ ...tab(), readIdentity: 'key-1 1' });
    const other = rows(5_000);
    other[4_321]![1] = 'changed behind the name';
    // The same name: the rows are not read (a difference in them is not seen).
    expect(await checkpointHolds(blob, { ...tab(other), readIdentity: 'key-1 1' })).toBe(true);
    // Another name, or none: the rows are compared as before.
    expect(await checkpointHolds(blob, { ...tab(other), readIdentity: 'key-2 1' })).toBe(false);
    expect(await checkpointHolds(blob, tab(other))).toBe(false);
    expect(await checkpointHolds(blob, { ...tab(), readIdentity: 'key-2 1' })).toBe(true);
    // The name stands only for the rows: another row count, name or header is still no match.
    expect(await checkpointHolds(blob, { ...tab(rows(4_999)), readIdentity: 'key-1 1' })).toBe(false);
    expect(await checkpointHolds(blob, { ...tab(), name: 'Renamed', readIdentity: 'key-1 1' })).toBe(false);
    // Encoded at once or paced, the name is the same field of the first frame.
    const whole = encodeCheckpoint({ ...tab(), readIdentity: 'key-1 1' });
    expect(await checkpointHolds(whole, { ...tab(other), readIdentity: 'key-1 1' })).toBe(true);
  });

  it('says null for what is not a readable checkpoint', async () => {
    expect(await checkpointHolds([encodeRedo([])], tab())).toBeNull();
    expect(await checkpointHolds([Buffer.from('not gzip')], tab())).toBeNull();
  });
});

type Checkpoint = { source_sheet_id: string; parts: Parts; source_version: string };

/** Checkpoints as a database hands them over: each by its first part, or whole (how often, counted). */
function storedAs(...checkpoints: Checkpoint[]) {
  const rowsOf = (c: Checkpoint, parts: Parts) =>
    parts.map((content) => ({
      source_sheet_id: c.source_sheet_id,
      source_version: c.source_version,
      content,
    }));
  const stored = {
    wholeReads: 0,
    heads: async () => checkpoints.flatMap((c) => rowsOf(c, c.parts.slice(0, 1))),
    whole: async () => {
      stored.wholeReads++;
      return checkpoints.flatMap((c) => rowsOf(c, c.parts));
    },
  };
  return stored;
}

describe('restoreBaselinesPaced with what was just read', () => {
  const stored = tab();
  const blob = encodeCheckpoint(stored);
  const checkpoint = { source_sheet_id: '1', parts: blob, source_version: 'v1' };

  it('restores an unchanged tab of the same version as the content read, without decoding it', async () => {
    const read = tab();
    const out = await restoreBaselinesPaced(storedAs(checkpoint), [], {
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
      const out = await restoreBaselinesPaced(storedAs(checkpoint), redo, {
        version,
        tabs: new Map([['1', read]]),
      });
      expect(out.get('1')?.typed).not.toBe(read.typed);
      expect(out.get('1')?.typed).toEqual(stored.typed);
    }
    // Without what was read, as before.
    expect((await restoreBaselinesPaced(storedAs(checkpoint), []))?.get('1')?.typed).toEqual(stored.typed);
  });

  it('takes a checkpoint made from the very read of now by its first part, and reads no other', async () => {
    // Text that does not compress: a checkpoint of several parts.
    const big = (identity?: string): TabContent => ({
      name: 'Orders',
      header: ['n', 'text'],
      typed: Array.from({ length: 40_000 }, (_, i) => [i, randomBytes(24).toString('hex')]),
      ...(identity ? { readIdentity: identity } : {}),
    });
    const named = big('key-1 1');
    const parts = await encodeCheckpointPaced(named);
    expect(parts.length).toBeGreaterThan(1);
    const read = { ...big('key-1 1'), typed: named.typed };
    const current = { version: 'v1', tabs: new Map([['1', read]]) };
    const one = storedAs({ source_sheet_id: '1', parts, source_version: 'v1' });
    const out = await restoreBaselinesPaced(one, [], current);
    expect(out.get('1')?.typed).toBe(read.typed);
    expect(one.wholeReads).toBe(0);

    // Read under another name, or edited since: the checkpoint is read whole, and compared or decoded.
    const other = storedAs({ source_sheet_id: '1', parts, source_version: 'v1' });
    const renamed = { version: 'v1', tabs: new Map([['1', { ...read, readIdentity: 'key-2 1' }]]) };
    expect((await restoreBaselinesPaced(other, [], renamed)).get('1')?.typed).toBe(read.typed);
    expect(other.wholeReads).toBe(1);
    const edited = storedAs({ source_sheet_id: '1', parts, source_version: 'v1' });
    const redo = [
      { source_sheet_id: '1', content: encodeRedo([{ change: 'deleted', row: 1, cells: null }]) },
    ];
    const restored = (await restoreBaselinesPaced(edited, redo, current)).get('1')!;
    expect(edited.wholeReads).toBe(1);
    expect(restored.typed).toEqual(named.typed.slice(1));
  });
});
