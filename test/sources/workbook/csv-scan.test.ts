/**
 * The CSV reader (csv-read.ts: the byte scanner, its csv-parse fallback, the flat tab) reads every file as csv-parse
 * and the tab builder read it before: the same records at the same places, the same tab (header, rows, values,
 * displayed texts), and the same refusal past the grid limits (and past the lines a tab may hold). Random files of tricky fields, against that
 * reference computed here from csv-parse and `buildTab` directly.
 */
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTab, type GridLimits } from '../../../server/sources/tab.ts';
import { rowOf, rowsComplete } from '../../../server/sources/tab-rows.ts';
import { layoutOf } from '../../../server/sources/workbook/csv-layout.ts';
import { readCsv } from '../../../server/sources/workbook/csv-read.ts';
import { csvParseOptions } from '../../../server/sources/workbook/csv-scan.ts';
import { decodeCsvTab } from '../../../server/sources/workbook/csv-tab.ts';
import { readCsvCell } from '../../../server/sources/workbook/values.ts';
import { csvFileArb as fileArb } from '../../helpers/csv-files.ts';

function reference(bytes: Buffer, limits?: GridLimits) {
  const { bom, delimiter } = layoutOf(bytes);
  const body = bom ? bytes.subarray(3) : bytes;
  let parsed: { record: string[]; info: { bytes: number } }[];
  try {
    parsed = parse(body, csvParseOptions(delimiter)) as unknown as {
      record: string[];
      info: { bytes: number };
    }[];
  } catch (e) {
    throw new Error(`Could not read CSV file: ${(e as Error).message}`);
  }
  // A file may have no more lines than a tab may hold rows, and its header (csv-tab-builder.ts `maxLines`).
  if (limits && parsed.length > limits.maxCells + 1)
    throw new Error(
      `has more than ${limits.maxCells + 1} lines, blank ones included: more than the rows a tab may hold within the limit of ${limits.maxCells} cells (SHEETPORT_MAX_CELLS).`,
    );
  const ranges: [number, number][] = [];
  let offset = 0;
  for (const { info } of parsed) {
    const raw = body.subarray(offset, info.bytes).toString('latin1');
    const eol = raw.endsWith('\r\n') ? 2 : raw.endsWith('\n') ? 1 : 0;
    ranges.push([offset + (bom ? 3 : 0), info.bytes - eol + (bom ? 3 : 0)]);
    offset = info.bytes;
  }
  const tab = buildTab(
    '1',
    'x',
    parsed.map((p) => p.record.map(readCsvCell)),
    limits,
  );
  return { ranges, tab };
}

function ours(bytes: Buffer, limits?: GridLimits) {
  const read = readCsv(bytes, 'x.csv', limits);
  const tab = decodeCsvTab(read.tab);
  return {
    ranges: Array.from(read.starts, (s, i) => [s, read.ends[i]!] as [number, number]),
    tab: { ...tab, formatted: tab.formatted },
  };
}

const outcome = <T>(f: () => T): T | { refused: string } => {
  try {
    return f();
  } catch (e) {
    return { refused: (e as Error).message };
  }
};

describe('the CSV reader', () => {
  it('reads every file as csv-parse and the tab builder do: records, places, tab', () => {
    fc.assert(
      fc.property(fileArb, (bytes) => {
        expect(outcome(() => ours(bytes))).toEqual(outcome(() => reference(bytes)));
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses past the grid limits as the tab builder does, in its words', () => {
    fc.assert(
      fc.property(
        fileArb,
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 120 }),
        (bytes, maxCells, maxTextChars) => {
          const limits = { maxCells, maxTextChars };
          const got = outcome(() => ours(bytes, limits));
          const want = outcome(() => reference(bytes, limits));
          // A file csv-parse reads is measured from its lines first (csv-grid-bound.ts): a bound, in its words.
          if ('refused' in got && / at least /.test(got.refused) && 'refused' in want) {
            expect(want.refused).toMatch(/SHEETPORT_MAX_CELLS/);
          } else expect(got).toEqual(want);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads a large generated file the same way', () => {
    const rows = Array.from({ length: 5000 }, (_, i) =>
      [i, `name ${i % 97}`, i % 3 ? 'TRUE' : 'false', (i * 1.25).toFixed(2), i % 7 ? '' : '"q, "" x"'].join(
        ',',
      ),
    );
    const bytes = Buffer.from(`id,name,ok,amount,note\r\n${rows.join('\r\n')}\r\n`);
    expect(ours(bytes)).toEqual(reference(bytes));
  });

  it('makes rows on demand, in any order, and behind, exactly as the tab made whole at once', async () => {
    // Over many steps of the paced pass, with displayed texts of their own (`1.50`, `TRUE`) everywhere, and rows
    // shorter than the header; rows asked for out of order before the pass reaches them.
    const rows = Array.from({ length: 45_001 }, (_, i) =>
      i % 4 === 0 ? `${i}` : [i, `name ${i % 89}`, i % 3 ? 'TRUE' : 'false', (i * 1.5).toFixed(2)].join(','),
    );
    const bytes = Buffer.from(`id,name,ok,amount\n${rows.join('\n')}\n`);
    const at = decodeCsvTab(readCsv(bytes, 'x.csv').tab);
    const whole = { typed: at.typed, formatted: at.formatted };
    const sliced = decodeCsvTab(readCsv(bytes, 'x.csv').tab);
    for (const r of [20_002, 20_000, 45_000, 0, 20_001, 39_999, 40_000, 3]) {
      expect(rowOf(sliced, r)).toEqual(whole.typed[r]);
    }
    expect(sliced.onDemand).toBeDefined();
    await rowsComplete([sliced]);
    expect(sliced.onDemand).toBeUndefined();
    expect(sliced.typed).toEqual(whole.typed);
    expect(sliced.formatted).toEqual(whole.formatted);
    expect(sliced.formatted[20_000]).toEqual(['20000', '', '', '']);
    expect(sliced.formatted[20_001]).toEqual(['20001', 'name 65', 'false', '30001.50']);
    expect(sliced.formatted[20_002]).toEqual(['20002', 'name 66', 'TRUE', '30003.00']);
  });
});
