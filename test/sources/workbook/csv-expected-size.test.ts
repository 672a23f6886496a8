/**
 * A .csv tab's cells are kept in arrays sized from its first records' density (csv-tab-builder.ts
 * `#expectTheRest`: room for the whole file made at once instead of by doublings). A file whose rest is sparser
 * than its start (room to spare, cut at the end) or denser (the arrays grow on) reads every row as written. Real
 * files read through the source, rows checked against the values the test wrote.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CellValue } from '../../../server/sources/source.ts';
import type { GridLimits } from '../../../server/sources/tab.ts';
import { readCsv } from '../../../server/sources/workbook/csv-read.ts';
import { expectedCells, expectedLines } from '../../../server/sources/workbook/csv-read-bounds.ts';
import { decodeCsvTab } from '../../../server/sources/workbook/csv-tab.ts';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { removeTempDirs, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

const HEADER = ['id', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'note'];
/** Per half: past the 4,096 records the size is expected from. */
const HALF = 6_000;

/** Row `id`: every cell used (dense) or only the first and a long last one (sparse). */
function rowOf(id: number, dense: boolean): { line: string; typed: CellValue[] } {
  if (dense) return { line: `${id},1,2,3,4,5,6,7,x`, typed: [id, 1, 2, 3, 4, 5, 6, 7, 'x'] };
  const note = `note ${'n'.repeat(200)} ${id}`;
  return { line: `${id},,,,,,,,${note}`, typed: [id, null, null, null, null, null, null, null, note] };
}

const fileOf = (rows: { line: string }[]) =>
  `${HEADER.join(',')}\n${rows.map((row) => row.line).join('\n')}\n`;

/** Where each line of `text` (LF line breaks, ASCII) starts and ends, its break excluded: what a read must say. */
function linePlaces(text: string): { starts: number[]; ends: number[] } {
  const starts: number[] = [];
  const ends: number[] = [];
  for (let at = 0; at < text.length; ) {
    const end = text.indexOf('\n', at);
    starts.push(at);
    ends.push(end);
    at = end + 1;
  }
  return { starts, ends };
}

async function readBack(firstDense: boolean) {
  const rows = Array.from({ length: 2 * HALF }, (_, i) => rowOf(i + 1, i < HALF === firstDense));
  const file = path.join(await tempDir(), 'orders.csv');
  await fs.writeFile(file, fileOf(rows));
  const source = createWorkbookSource(file);
  try {
    const [tab] = (await source.read()).tabs;
    return { tab: tab!, expected: rows.map((row) => row.typed) };
  } finally {
    await source.close();
  }
}

describe('a .csv tab read into arrays sized from its start', () => {
  it('reads a file whose rest is sparser than its start as written', async () => {
    const { tab, expected } = await readBack(true);
    expect(tab.header).toEqual(HEADER);
    expect(tab.typed).toEqual(expected);
  });

  it('reads a file whose rest is denser than its start as written', async () => {
    const { tab, expected } = await readBack(false);
    expect(tab.header).toEqual(HEADER);
    expect(tab.typed).toEqual(expected);
  });

  it('places every record where its line is, the file denser or sparser past its start', () => {
    for (const firstDense of [true, false]) {
      const text = fileOf(Array.from({ length: 2 * HALF }, (_, i) => rowOf(i + 1, i < HALF === firstDense)));
      const read = readCsv(new TextEncoder().encode(text), 'orders.csv');
      const places = linePlaces(text);
      expect([...read.starts]).toEqual(places.starts);
      expect([...read.ends]).toEqual(places.ends);
    }
  });

  it('reads a few rows followed by many blank lines as those rows, every line placed', () => {
    const text = `id,name\n1,a\n2,b\n${'\n'.repeat(300_000)}`;
    const read = readCsv(new TextEncoder().encode(text), 'blank.csv');
    const places = linePlaces(text);
    expect(read.starts.length).toBe(300_003);
    expect([...read.starts]).toEqual(places.starts);
    expect([...read.ends]).toEqual(places.ends);
    expect(decodeCsvTab(read.tab).typed).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
  });
});

describe('the room expected for the rest of a .csv file', () => {
  it('scales what was read, never past the cells the limits let a tab hold, nor more rows than cells', () => {
    const room = (cells: number, lines: number, scale: number, limits?: GridLimits) => ({
      cells: expectedCells(cells, scale, limits),
      rowStarts: expectedLines(lines, scale, limits),
    });
    expect(room(100, 11, 10)).toEqual({ cells: 1000, rowStarts: 110 });
    const limits = { maxCells: 5000, maxTextChars: 1e9 };
    expect(room(100, 11, 10, limits)).toEqual({ cells: 1000, rowStarts: 110 });
    // `1\n` repeated: tiny records scaled by a huge factor.
    expect(room(4096, 4097, 250_000, limits)).toEqual({ cells: 5000, rowStarts: 5001 });
  });
});
