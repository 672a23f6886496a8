/**
 * A large .csv file read by two threads (csv-read-split.ts) gives exactly what one thread reading it gives: the
 * same records at the same places, the same tab, the same refusal. Random files split at their middle (the
 * second half read in this thread, so thousands of files run quickly), then the real helper thread on files
 * where the split lands inside a field in quotes, where the halves write a column's booleans differently, and
 * on a file over the size the service splits from.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GridLimits } from '../../../server/sources/tab.ts';
import { readCsvPart } from '../../../server/sources/workbook/csv-part-thread.ts';
import { type CsvRead, readCsv } from '../../../server/sources/workbook/csv-read.ts';
import {
  readCsvSplit,
  readOnHelperThread,
  SPLIT_FROM_BYTES,
} from '../../../server/sources/workbook/csv-read-split.ts';
import { decodeCsvTab } from '../../../server/sources/workbook/csv-tab.ts';
import { engineNamed } from '../../../server/sources/workbook/engines.ts';
import { csvFiles, SCANNED_FIELDS } from '../../helpers/csv-files.ts';

/** What a read means to the service: the records' places and the decoded tab (ids of texts aside). */
function meaning(read: CsvRead) {
  const tab = decodeCsvTab(read.tab);
  return {
    layout: read.layout,
    starts: [...read.starts],
    ends: [...read.ends],
    tab: { ...tab, typed: tab.typed, formatted: tab.formatted },
  };
}

async function outcome(read: () => CsvRead | Promise<CsvRead>) {
  try {
    return meaning(await read());
  } catch (e) {
    return { refused: (e as Error).message };
  }
}

/** The second half read in this thread, as the helper thread reads it; counts the halves it read whole. */
function inThread() {
  const counts = { parts: 0, read: 0 };
  const readPart = (job: Parameters<typeof readCsvPart>[0]) => {
    counts.parts++;
    const read = readCsvPart(job).reply.read;
    if (read) counts.read++;
    return { read: Promise.resolve(read), cancel() {} };
  };
  return { counts, options: { splitFrom: 0, readPart } };
}

const bytesOf = (b: Buffer) => new Uint8Array(b);

describe('a .csv file read in two halves', () => {
  it('reads every file as one thread does: records, places, tab', async () => {
    const { counts, options } = inThread();
    await fc.assert(
      fc.asyncProperty(csvFiles(30), async (file) => {
        const one = await outcome(() => readCsv(bytesOf(file), 'x.csv'));
        const two = await outcome(() => readCsvSplit(bytesOf(file), 'x.csv', undefined, undefined, options));
        expect(two).toEqual(one);
      }),
      { numRuns: 1500 },
    );
    expect(counts.parts).toBeGreaterThan(500);
  });

  it('merges the halves of files the scanner reads, and refuses past the limits in the same words', async () => {
    const { counts, options } = inThread();
    await fc.assert(
      fc.asyncProperty(
        csvFiles(30, SCANNED_FIELDS),
        fc.option(
          fc.record({
            maxCells: fc.integer({ min: 1, max: 200 }),
            maxTextChars: fc.integer({ min: 1, max: 600 }),
          }),
        ),
        async (file, limits) => {
          const grid: GridLimits | undefined = limits ?? undefined;
          const one = await outcome(() => readCsv(bytesOf(file), 'x.csv', grid));
          const two = await outcome(() => readCsvSplit(bytesOf(file), 'x.csv', grid, undefined, options));
          expect(two).toEqual(one);
        },
      ),
      { numRuns: 1500 },
    );
    // Most second halves were read whole and appended (the others began inside a field in quotes, or were empty).
    expect(counts.read).toBeGreaterThan(counts.parts / 3);
  });

  it('refuses a file of more lines than a tab may hold rows, blank ones too, as one thread does', async () => {
    const grid: GridLimits = { maxCells: 1000, maxTextChars: 1e9 };
    const { options } = inThread();
    const onHelper = { splitFrom: 0, readPart: readOnHelperThread };
    // Over in the first half, in the second, only once the halves are put together; and just within.
    for (const [text, refused] of [
      [`id,name\n1,a\n${'\n'.repeat(1500)}2,b\n`, true],
      [`id,name\n1,a\n2,b\n${'\n'.repeat(1500)}`, true],
      [`id\n${'1\n'.repeat(300)}${'\n'.repeat(400)}${'2\n'.repeat(100)}${'\n'.repeat(400)}`, true],
      [`id,name\n1,a\n${'\n'.repeat(999)}`, false],
    ] as const) {
      const file = Buffer.from(text);
      const one = await outcome(() => readCsv(bytesOf(file), 'x.csv', grid));
      expect('refused' in one, text.slice(0, 30)).toBe(refused);
      if (refused)
        expect(one).toEqual({ refused: expect.stringMatching(/more than 1001 lines, blank ones included/) });
      for (const split of [options, onHelper])
        expect(await outcome(() => readCsvSplit(bytesOf(file), 'x.csv', grid, undefined, split))).toEqual(
          one,
        );
    }
  });

  it('refuses a file with a cell past column 16,384 whole, wherever it is, as one thread does', async () => {
    const { counts, options } = inThread();
    const onHelper = { splitFrom: 0, readPart: readOnHelperThread };
    /** A record whose `n`-th field is `last`, every field before it empty. */
    const wide = (n: number, last: string) => `${','.repeat(n - 1)}${last}`;
    const rows = (k: number) => Array.from({ length: k }, (_, i) => `${i},r${i}`).join('\n');
    // The header, a row in the first half, one in the second, one csv-parse reads (a quote inside a field).
    for (const [text, widest] of [
      [`${wide(16_385, 'x')}\n1\n`, 16_385],
      [`id,name\n${rows(50)}\n${wide(16_385, '7')}\n${rows(4000)}\n`, 16_385],
      [`id,name\n${rows(4000)}\n${wide(20_000, 'z')}\n${rows(4000)}\n`, 20_000],
      [`id,a"b\n${wide(16_390, 'q')}\n`, 16_390],
    ] as const) {
      const file = Buffer.from(text);
      const one = await outcome(() => readCsv(bytesOf(file), 'x.csv'));
      expect(one).toEqual({
        refused: `has a tab ("x") with a cell in column ${widest}: a tab holds at most 16384 columns (A to XFD), as Excel's sheet does, and a wider file is refused rather than cut.`,
      });
      for (const split of [options, onHelper])
        expect(
          await outcome(() => readCsvSplit(bytesOf(file), 'x.csv', undefined, undefined, split)),
        ).toEqual(one);
    }
    expect(counts.read).toBeGreaterThan(0); // a second half was read whole, its wide row in it
    // Empty fields past the widest column are no cells, and a tab exactly that wide is read.
    const trailing = readCsv(bytesOf(Buffer.from(`id,name\n1,a${','.repeat(30_000)}\n2,b\n`)), 'x.csv');
    expect(decodeCsvTab(trailing.tab).typed).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    const widest = decodeCsvTab(readCsv(bytesOf(Buffer.from(`${wide(16_384, 'last')}\n1\n`)), 'x.csv').tab);
    expect([widest.header.length, widest.header[16_383], widest.header[0]]).toEqual([16_384, 'last', 'A']);
  });

  it('reads a file whose first half has no header (blank lines) as one thread does', async () => {
    const file = Buffer.from(`${'\n'.repeat(40)}id,name\n1,a\n2,b\n`);
    const { counts, options } = inThread();
    const split = await readCsvSplit(bytesOf(file), 'x.csv', undefined, undefined, options);
    expect(counts.parts).toBe(1);
    expect(meaning(split)).toEqual(meaning(readCsv(bytesOf(file), 'x.csv')));
    expect(decodeCsvTab(split.tab).header).toEqual(['id', 'name']);
  });

  it('on the helper thread: a split inside a field in quotes, and booleans written two ways, read as one thread reads them', async () => {
    const rows = (n: number, ok: (i: number) => string) =>
      Array.from(
        { length: n },
        (_, i) => `${i},"note ${i}\nline two, ""quoted""",${ok(i)},${(i * 1.5).toFixed(2)}`,
      );
    const quoted = Buffer.from(
      `id,note,ok,amount\n${rows(2000, (i) => (i % 2 ? 'TRUE' : 'FALSE')).join('\n')}\n`,
    );
    // The first half's column writes `true`, the second's `TRUE`: kept as the first read it, the others shown as written.
    const cased = Buffer.from(
      `id,ok\n${Array.from({ length: 4000 }, (_, i) => `${i},${i < 2000 ? 'true' : 'TRUE'}`).join('\n')}\n`,
    );
    const onHelper = { splitFrom: 0, readPart: readOnHelperThread };
    for (const file of [quoted, cased]) {
      const split = await readCsvSplit(bytesOf(file), 'x.csv', undefined, undefined, onHelper);
      expect(meaning(split)).toEqual(meaning(readCsv(bytesOf(file), 'x.csv')));
    }
    const tab = decodeCsvTab(
      (await readCsvSplit(bytesOf(cased), 'x.csv', undefined, undefined, onHelper)).tab,
    );
    expect(tab.formatted[0]).toEqual(['0', 'true']);
    expect(tab.formatted[3999]).toEqual(['3999', 'TRUE']);
  });

  it('splits a file over the size the service splits from, on the helper thread, saying how far it is', async () => {
    const line = (i: number) =>
      `${i},Name ${i % 1000},name${i}@example.com,${i % 3 ? 'TRUE' : 'FALSE'},${(i * 0.25).toFixed(2)}`;
    const lines: string[] = ['id,name,email,shipped,amount'];
    let size = 0;
    for (let i = 0; size <= SPLIT_FROM_BYTES + 1024; i++) {
      lines.push(line(i));
      size += lines.at(-1)!.length + 1;
    }
    const file = Buffer.from(`${lines.join('\n')}\n`);
    const said: number[] = [];
    const read = await engineNamed('csv').readOffThread(
      bytesOf(file),
      'x.csv',
      { maxCells: 1e9, maxTextChars: 1e10 },
      (f) => said.push(f),
    );
    const one = readCsv(bytesOf(file), 'x.csv');
    expect(meaning(read.payload as CsvRead)).toEqual(meaning(one));
    expect(said.at(-1)).toBe(1);
    expect(said).toEqual([...said].sort((a, b) => a - b));
  });
});
