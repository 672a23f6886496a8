/**
 * The baselines' stored format (repositories/rules/baseline-format.ts): a checkpoint of format 2 reads back the same whether
 * decoded at once or a slice at a time, a checkpoint of format 1 (what earlier versions stored) still reads, a
 * blob cut short or of another kind reads as none, a blob over a part is made and read in parts; and the row edits of a recorded change applied in place to a
 * large tab give exactly what the copying rule gives.
 */
import { randomBytes } from 'node:crypto';
import { serialize } from 'node:v8';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffRows } from '../../server/diff/row-diff.ts';
import type { RowEdit } from '../../server/repositories/baselines.ts';
import {
  decodeCheckpoint,
  decodeCheckpointPaced,
  encodeCheckpoint,
  encodeCheckpointPaced,
  encodeRedo,
  PART_BYTES,
} from '../../server/repositories/rules/baseline-format.ts';
import { applyEdits, applyEditsInPlace } from '../../server/repositories/rules/row-edits.ts';
import type { CellValue } from '../../server/sources/source.ts';
import { editRows, type RowEdit as ScriptEdit } from '../helpers/row-edits.ts';

const cell = fc.constantFrom<CellValue>(null, 'a', 'b', 'é', 1, 2.5, -0, true, false);
const row = fc.array(cell, { minLength: 3, maxLength: 3 });

describe('the checkpoint format', () => {
  it('reads back what it stored, at once or a slice at a time, for tabs of any length', async () => {
    for (const count of [0, 1, 1_999, 2_000, 2_001, 7_500]) {
      const typed = Array.from({ length: count }, (_, i) => [i, `r${i}`, i % 3 === 0 ? null : i % 2 === 0]);
      const content = { name: 'T', header: ['a', 'b', 'c'], typed };
      const blob = encodeCheckpoint(content);
      expect(decodeCheckpoint(blob)).toEqual(content);
      expect(await decodeCheckpointPaced(blob)).toEqual(content);
      expect(decodeCheckpoint(await encodeCheckpointPaced(content))).toEqual(content);
    }
  });

  it('makes a blob over a part in parts of at most PART_BYTES, read back whether cut there or anywhere', async () => {
    // Random text: its blob stays larger than one part after compression.
    const text = (i: number) => randomBytes(24).toString('base64') + i;
    const content = {
      name: 'Big',
      header: ['a', 'b'],
      typed: Array.from({ length: 60_000 }, (_, i) => [i, text(i)]),
    };
    for (const parts of [encodeCheckpoint(content), await encodeCheckpointPaced(content)]) {
      expect(parts.length).toBeGreaterThan(1);
      for (const part of parts) expect(part.length).toBeLessThanOrEqual(PART_BYTES);
      expect(decodeCheckpoint(parts)).toEqual(content);
      expect(await decodeCheckpointPaced(parts)).toEqual(content);
      // The same stream cut elsewhere (a store that split it otherwise) reads the same.
      const whole = Buffer.concat(parts);
      const third = Math.floor(whole.length / 3);
      const recut = [whole.subarray(0, 7), whole.subarray(7, third), whole.subarray(third)];
      expect(await decodeCheckpointPaced(recut)).toEqual(content);
    }
  });

  it('reads a checkpoint of format 1, and none from a blob cut short or of another kind', async () => {
    const content = { name: 'T', header: ['a'], typed: [[1], ['x']] };
    const format1 = gzipSync(
      Buffer.concat([
        Buffer.from('SPB\x01C', 'latin1'),
        serialize({ name: 'T', header: ['a'], rows: content.typed }),
      ]),
    );
    expect(decodeCheckpoint([format1])).toEqual(content);
    expect(await decodeCheckpointPaced([format1])).toEqual(content);
    const short = gzipSync(
      Buffer.from(
        gunzipSync(Buffer.concat(encodeCheckpoint({ ...content, typed: [[1], [2], [3]] }))).subarray(0, -3),
      ),
    );
    expect(decodeCheckpoint([short])).toBeNull();
    expect(await decodeCheckpointPaced([short])).toBeNull();
    expect(decodeCheckpoint([encodeRedo([])])).toBeNull();
    expect(await decodeCheckpointPaced([encodeRedo([])])).toBeNull();
    expect(await decodeCheckpointPaced([Buffer.from('not gzip')])).toBeNull();
    expect(
      await decodeCheckpointPaced([Buffer.concat(encodeCheckpoint(content)).subarray(0, -8)]),
    ).toBeNull();
    expect(await decodeCheckpointPaced(encodeCheckpoint(content).slice(0, -1))).toBeNull();
  });

  it('reads the same at once and as it inflates, from any body cut short or with a byte changed', async () => {
    const content = {
      name: 'T',
      header: ['a', 'b'],
      typed: Array.from({ length: 4_500 }, (_, i) => [i, `r${i}`]),
    };
    const body = gunzipSync(Buffer.concat(encodeCheckpoint(content)));
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(255), fc.boolean(), async (at, byte, cut) => {
        const place = at % body.length;
        const changed = Buffer.from(body);
        if (!cut) changed[place] = byte;
        const blob = [gzipSync(cut ? changed.subarray(0, place) : changed)];
        expect(await decodeCheckpointPaced(blob)).toEqual(decodeCheckpoint(blob));
      }),
      { numRuns: 60 },
    );
  });
});

describe('row edits applied in place', () => {
  it('give what the copying rule gives, on tabs far larger than the change', () => {
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 200, maxLength: 400 }),
        fc.array(
          fc.oneof(
            fc.record({ t: fc.constant('insert' as const), at: fc.nat(), row }),
            fc.record({ t: fc.constant('delete' as const), at: fc.nat() }),
            fc.record({ t: fc.constant('update' as const), at: fc.nat(), row }),
          ),
          { maxLength: 8 },
        ),
        (old, script: ScriptEdit[]) => {
          const next = editRows(old, script);
          const edits = diffRows(old, next).map(
            (c): RowEdit => ({ change: c.kind, row: c.row_index, cells: c.after }),
          );
          const copied = applyEdits(old, edits);
          expect(copied).toEqual(next);
          expect(
            applyEditsInPlace(
              old.map((r) => r),
              edits,
            ),
          ).toEqual(copied);
        },
      ),
      { numRuns: 300 },
    );
  });
});
