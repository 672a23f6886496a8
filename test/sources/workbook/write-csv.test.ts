import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { writeOne, writeTogether } from '../../helpers/source-write.ts';
import { PLAIN, rejection, removeTempDirs, sha, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

async function csvFile(content: string | Buffer, name = 'data.csv') {
  const dir = await tempDir();
  const file = path.join(dir, name);
  await fs.writeFile(file, content);
  return { dir, file, source: createWorkbookSource(file) };
}

describe('writing .csv', () => {
  it('keeps the raw text of untouched records, CRLF endings and the BOM', async () => {
    const original =
      '\uFEFFName,Code,Amount,Note\r\n' +
      'Ann,007,"1,000","multi\r\nline"\r\n' +
      '"Bob",010,5,"quoted ""x"""\r\n' +
      'Cid,011,7,\r\n';
    const { file, source } = await csvFile(original);
    const result = await writeOne(
      source,
      '1',
      [
        { op: 'update', row: 3, values: { Amount: 8.5, Note: 'a, b' } },
        { op: 'append', values: { Name: 'Dee', Code: '012', Amount: 1000, Note: true } },
      ],
      PLAIN,
    );
    const text = await fs.readFile(file, 'utf8');
    expect(text).toBe(
      '\uFEFFName,Code,Amount,Note\r\n' +
        'Ann,007,"1,000","multi\r\nline"\r\n' +
        '"Bob",010,5,"quoted ""x"""\r\n' +
        'Cid,011,8.5,"a, b"\r\n' +
        'Dee,012,1000,true\r\n',
    );
    expect(result.snapshot.tabs[0]?.typed).toEqual([
      ['Ann', '007', '1,000', 'multi\r\nline'],
      ['Bob', '010', 5, 'quoted "x"'],
      ['Cid', '011', 8.5, 'a, b'],
      ['Dee', '012', 1000, true],
    ]);
    expect(result.snapshot.version).toBe(await source.version());
    expect((await source.read()).tabs).toEqual(result.snapshot.tabs);
  });

  it('keeps LF, semicolons and a missing final newline; deletes move rows up', async () => {
    const { file, source } = await csvFile('id;name\n1;a\n2;b\n3;c');
    await writeOne(
      source,
      '1',
      [
        { op: 'delete', row: 2 },
        { op: 'append', values: { id: 4, name: 'x;y' } },
        { op: 'update', row: 1, values: { name: null } },
      ],
      PLAIN,
    );
    expect(await fs.readFile(file, 'utf8')).toBe('id;name\n1;\n3;c\n4;"x;y"');
  });

  it('writes user-entered strings as canonical text and stores "=..." behind the text marker', async () => {
    const { file, source } = await csvFile('a,b,c,d\n');
    await writeOne(
      source,
      '1',
      [{ op: 'append', values: { a: '$1,234.50', b: '3/1/2024', c: '=1+1', d: 'TRUE' } }],
      { allowFormulas: true, userEntered: true },
    );
    expect(await fs.readFile(file, 'utf8')).toBe("a,b,c,d\n1234.5,2024-03-01,'=1+1,true\n");
    expect((await source.read()).tabs[0]?.typed).toEqual([[1234.5, '2024-03-01', '=1+1', true]]);
  });

  it('creates a header in an empty file from the appended keys', async () => {
    const { file, source } = await csvFile('');
    await writeOne(source, '1', [{ op: 'append', values: { name: 'Ann', 'zip code': '02134' } }], PLAIN);
    expect(await fs.readFile(file, 'utf8')).toBe('name,zip code\nAnn,02134\n');
    expect((await source.read()).tabs[0]?.typed).toEqual([['Ann', '02134']]);
  });

  it('rejects bad batches without touching the file and the only tab id is 1', async () => {
    const { file, source } = await csvFile('a,b\n1,2\n');
    const before = await sha(file);
    expect(
      (await rejection(writeOne(source, '1', [{ op: 'update', row: 2, values: { a: 1 } }], PLAIN))).code,
    ).toBe('row_not_found');
    expect((await rejection(writeOne(source, '1', [{ op: 'append', values: { c: 1 } }], PLAIN))).code).toBe(
      'unknown_field',
    );
    expect((await rejection(writeOne(source, '0', [{ op: 'append', values: { a: 1 } }], PLAIN))).code).toBe(
      'sheet_not_found',
    );
    expect(await sha(file)).toBe(before);
  });

  it('50 appends to a CSV handed over as one turn all land', async () => {
    const { file, source } = await csvFile('n,label\n');
    const settled = await writeTogether(
      source,
      Array.from({ length: 50 }, (_, i) => ({
        sourceSheetId: '1',
        mutations: [{ op: 'append' as const, values: { n: i, label: `r${i}` } }],
        options: PLAIN,
      })),
    );
    expect(settled.every((s) => s.status === 'fulfilled')).toBe(true);
    const lines = (await fs.readFile(file, 'utf8')).trim().split('\n');
    expect(lines.length).toBe(51);
    expect(new Set(lines.slice(1)).size).toBe(50);
  });
});
