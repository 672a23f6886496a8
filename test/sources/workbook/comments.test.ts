/**
 * Cell comments (notes) in workbooks from openpyxl (and so pandas) and from ExcelJS: they read, and a
 * write through SheetPort keeps them, as openpyxl sees the saved file.
 */
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { runPython } from '../../helpers/openpyxl.ts';
import { PLAIN, removeTempDirs, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

/** Two sheets with comments; openpyxl names the parts xl/comments/commentN.xml and commentsDrawingN.vml. */
const MAKE = `
import sys, openpyxl
from openpyxl.comments import Comment
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'People'
ws.append(['Name', 'Age'])
ws.append(['Ann', 31])
ws.append(['Bob', 42])
ws['A2'].comment = Comment('hi', 'me')
ws['B3'].comment = Comment('two\\nlines & <more>', 'you')
other = wb.create_sheet('Plain')
other.append(['k', 'v'])
other.append(['a', 1])
third = wb.create_sheet('Notes')
third.append(['k', 'v'])
third.append(['x', 'y'])
third['B2'].comment = Comment('third sheet', 'me')
wb.save(sys.argv[1])
`;

const COMMENTS = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
print(json.dumps({ws.title: {c.coordinate: c.comment.text for row in ws.iter_rows() for c in row if c.comment}
                  for ws in wb.worksheets}))
`;

import { writeOne } from '../../helpers/source-write.ts';

async function commentsOf(file: string): Promise<Record<string, Record<string, string>>> {
  return JSON.parse(await runPython(COMMENTS, [file]));
}

describe('workbooks with cell comments', () => {
  it('written by openpyxl: read with their values, and an update keeps every comment', async () => {
    const file = path.join(await tempDir(), 'openpyxl-comments.xlsx');
    await runPython(MAKE, [file]);
    const source = createWorkbookSource(file);
    const snapshot = await source.read();
    expect(snapshot.tabs.map((t) => [t.name, t.typed])).toEqual([
      [
        'People',
        [
          ['Ann', 31],
          ['Bob', 42],
        ],
      ],
      ['Plain', [['a', 1]]],
      ['Notes', [['x', 'y']]],
    ]);

    const people = snapshot.tabs[0]!;
    await writeOne(source, people.sourceSheetId, [{ op: 'update', row: 1, values: { Age: 32 } }], PLAIN);
    expect(await commentsOf(file)).toEqual({
      People: { A2: 'hi', B3: 'two\nlines & <more>' },
      Plain: {},
      Notes: { B2: 'third sheet' },
    });
    const after = await source.read();
    expect(after.tabs[0]!.typed).toEqual([
      ['Ann', 32],
      ['Bob', 42],
    ]);
    await source.close();

    // A second SheetPort write reads back what the first one saved.
    const again = createWorkbookSource(file);
    await writeOne(again, people.sourceSheetId, [{ op: 'append', values: { Name: 'Cy', Age: 7 } }], PLAIN);
    expect((await commentsOf(file)).People).toEqual({ A2: 'hi', B3: 'two\nlines & <more>' });
    await again.close();
  });

  it('written by ExcelJS (cell.note): read, and an append keeps the note', async () => {
    const file = path.join(await tempDir(), 'exceljs-note.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Data');
    ws.addRow(['Item', 'Qty']);
    ws.addRow(['pen', 3]);
    ws.getCell('A2').note = 'x';
    await wb.xlsx.writeFile(file);

    const source = createWorkbookSource(file);
    const snapshot = await source.read();
    expect(snapshot.tabs[0]!.typed).toEqual([['pen', 3]]);
    await writeOne(
      source,
      snapshot.tabs[0]!.sourceSheetId,
      [{ op: 'append', values: { Item: 'ink', Qty: 1 } }],
      PLAIN,
    );
    expect(await commentsOf(file)).toEqual({ Data: { A2: 'x' } });
    expect((await source.read()).tabs[0]!.typed).toEqual([
      ['pen', 3],
      ['ink', 1],
    ]);
    await source.close();
  });
});
