import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectDelimiter } from '../../../server/sources/workbook/csv.ts';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { typeCsvText } from '../../../server/sources/workbook/values.ts';
import { removeTempDirs, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

async function readCsv(content: string | Buffer, name = 'people.csv') {
  const file = path.join(await tempDir(), name);
  await fs.writeFile(file, content);
  const snap = await createWorkbookSource(file).read();
  return { snap, tab: snap.tabs[0] };
}

describe('CSV typing', () => {
  it('only canonical numbers become numbers', () => {
    expect(['0', '42', '-3', '1.5', '-0.25', '1e3', '2.5E-2'].map(typeCsvText)).toEqual([
      0, 42, -3, 1.5, -0.25, 1000, 0.025,
    ]);
    expect(['007', '1,000', '+5', '.5', '5.', ' 5', '1e400', '0x10', 'NaN'].map(typeCsvText)).toEqual([
      '007',
      '1,000',
      '+5',
      '.5',
      '5.',
      ' 5',
      '1e400',
      '0x10',
      'NaN',
    ]);
  });

  it('types booleans case-insensitively, empty as null, dates as strings', () => {
    expect(['true', 'FALSE', 'True', '', '2024-03-01', 'yes'].map(typeCsvText)).toEqual([
      true,
      false,
      true,
      null,
      '2024-03-01',
      'yes',
    ]);
  });

  it('detects the delimiter from the first line', () => {
    expect(detectDelimiter('a,b,c\n1;2;3;4')).toBe(',');
    expect(detectDelimiter('a;b;c\n')).toBe(';');
    expect(detectDelimiter('a\tb\tc')).toBe('\t');
    expect(detectDelimiter('"x;y;z",b\n')).toBe(',');
    expect(detectDelimiter('single')).toBe(',');
  });
});

describe('reading .csv files', () => {
  it('reads one tab named after the file, with BOM, CRLF and quoted fields', async () => {
    const csv =
      '\uFEFFName,Code,Amount,Active,Note\r\n"Ann",007,"1,000",TRUE,"says ""hi""\r\nsecond line"\r\n\r\nBob,010,12.5,false,\r\n\r\n';
    const { snap, tab } = await readCsv(csv);
    expect(snap.title).toBe('people.csv');
    expect(tab?.sourceSheetId).toBe('1');
    expect(tab?.name).toBe('people');
    expect(tab?.header).toEqual(['Name', 'Code', 'Amount', 'Active', 'Note']);
    expect(tab?.headerRow).toBe(1);
    expect(tab?.typed).toEqual([
      ['Ann', '007', '1,000', true, 'says "hi"\r\nsecond line'],
      [null, null, null, null, null],
      ['Bob', '010', 12.5, false, null],
    ]);
    expect(tab?.formatted[2]).toEqual(['Bob', '010', '12.5', 'false', '']);
  });

  it('handles semicolons, tabs, LF, ragged rows, blank/duplicate headers and leading blank lines', async () => {
    const { tab } = await readCsv('\n\nid;name;;name\n1;a\n2;b;x;y;z\n', 'ragged.CSV');
    expect(tab?.headerRow).toBe(3);
    expect(tab?.header).toEqual(['id', 'name', 'C', 'name_2', 'E']);
    expect(tab?.typed).toEqual([
      [1, 'a', null, null, null],
      [2, 'b', 'x', 'y', 'z'],
    ]);
    const tabs = await readCsv('a\tb\n1\t2', 'tabs.csv');
    expect(tabs.tab?.typed).toEqual([[1, 2]]);
  });

  it('reads an empty file as an empty tab', async () => {
    const { tab } = await readCsv('');
    expect(tab).toMatchObject({ header: [], headerRow: 0, typed: [] });
  });
});
