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

async function readBack(firstDense: boolean) {
  const rows = Array.from({ length: 2 * HALF }, (_, i) => rowOf(i + 1, i < HALF === firstDense));
  const file = path.join(await tempDir(), 'orders.csv');
  await fs.writeFile(file, `${HEADER.join(',')}\n${rows.map((row) => row.line).join('\n')}\n`);
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
});
