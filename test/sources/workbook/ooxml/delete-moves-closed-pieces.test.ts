/**
 * A delete in a sheet larger than one piece of rows, after an earlier write has closed every piece: the rows
 * below move up and formulas anywhere in the sheet (above the deleted row and below it) follow, although the
 * pieces they sit in are rewritten only when the file is written (row-piece.ts `move`). Pieces without formulas
 * are renumbered in their bytes on the piece-move threads (row-number-shift.ts); the rows read the same after,
 * and the pieces take further edits. Written through the workbook file as the service writes, read back by
 * openpyxl.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_FILE_LIMITS } from '../../../../server/config.ts';
import { engineNamed } from '../../../../server/sources/workbook/engines.ts';
import { WorkbookFile } from '../../../../server/sources/workbook/workbook-file.ts';
import { runPython } from '../../../helpers/openpyxl.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-closed-pieces-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Data'
ws.append(['Name', 'Qty', 'Ref'])
for i in range(1, 1800):
    ws.append(['n%d' % i, i, None])
ws['C3'] = '=B1500'
ws['C1700'] = '=B1400+B10'
wb.save(sys.argv[1])
`;

const LOOK = `
import json, sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Data']
print(json.dumps({'c3': ws['C3'].value, 'c1699': ws['C1699'].value, 'a1000': ws['A1000'].value,
  'a1001': ws['A1001'].value, 'last': ws.max_row, 'alast': ws.cell(ws.max_row, 1).value}))
`;

import { writeOne } from '../../../helpers/source-write.ts';

describe('a delete below closed pieces', () => {
  it('moves the rows below and every formula that points past it', async () => {
    const file = path.join(dir, 'big.xlsx');
    await runPython(MAKE, [file]);
    const workbook = new WorkbookFile(file, engineNamed('xlsx'), { ...DEFAULT_FILE_LIMITS });
    try {
      const { tabs } = await workbook.read();
      const id = tabs[0]!.sourceSheetId;
      const options = { allowFormulas: false, userEntered: false };
      // The first write reads the sheet into pieces and closes them all.
      await writeOne(workbook, id, [{ op: 'update', row: 5, values: { Name: 'five' } }], options);
      // API row 998 is sheet row 999 ("n998").
      const result = await writeOne(workbook, id, [{ op: 'delete', row: 998 }], options);
      const after = result.snapshot.tabs[0]!;
      expect(after.typed).toHaveLength(1798);
      expect(after.typed[997]![0]).toBe('n999');
      expect(after.withFormulas?.[1]?.[2]).toBe('=B1499');
      const seen = JSON.parse(await runPython(LOOK, [file]));
      expect(seen).toEqual({
        c3: '=B1499',
        c1699: '=B1399+B10',
        a1000: 'n1000',
        a1001: 'n1001',
        last: 1799,
        alast: 'n1799',
      });
    } finally {
      await workbook.close();
    }
  });

  it('renumbers pieces without formulas in their bytes, and their rows take edits after', async () => {
    const file = path.join(dir, 'plain.xlsx');
    // 3,000 rows of text, numbers and blanks, one empty row, a cell beyond Z: rows cross 1000 as they move up.
    await runPython(
      `
import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Data'
ws.append(['Name', 'Qty', 'Note'])
for i in range(1, 3000):
    ws.append(['n%d' % i, i * 1.5, None if i % 7 else 'é r="x" %d' % i])
ws['AA2500'] = 'far'
ws.delete_rows(1200)
ws.insert_rows(1200)
wb.save(sys.argv[1])
`,
      [file],
    );
    const read = `
import json, sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Data']
print(json.dumps([[c for c in row] for row in ws.iter_rows(values_only=True)]))
`;
    const before = JSON.parse(await runPython(read, [file])) as unknown[][];
    const workbook = new WorkbookFile(file, engineNamed('xlsx'), { ...DEFAULT_FILE_LIMITS });
    try {
      const { tabs } = await workbook.read();
      const id = tabs[0]!.sourceSheetId;
      const options = { allowFormulas: false, userEntered: false };
      await writeOne(workbook, id, [{ op: 'update', row: 2, values: { Name: 'two' } }], options);
      // API row 9 is sheet row 10. Two deletes move every row below up two: 1001 and 1002 become 999 and
      // 1000, a digit shorter in each reference, at the start of their piece.
      await writeOne(workbook, id, [{ op: 'delete', row: 9 }], options);
      await writeOne(workbook, id, [{ op: 'delete', row: 9 }], options);
      // Rows of moved pieces edited after: their texts are cut from the moved bytes by their new lengths
      // (sheet row 1100 is now 1098, after the two shorter rows of its piece).
      await writeOne(workbook, id, [{ op: 'update', row: 1097, values: { Name: 'moved' } }], options);
      await writeOne(workbook, id, [{ op: 'update', row: 2493, values: { Qty: 7 } }], options);
      await writeOne(workbook, id, [{ op: 'append', values: { Name: 'last' } }], options);
      const expected = before.map((row) => [...row]);
      expected[2]![0] = 'two';
      expected.splice(9, 2);
      expected[1097]![0] = 'moved';
      expected[2493]![1] = 7;
      const width = expected[0]!.length;
      expected.push(['last', ...Array.from({ length: width - 1 }, () => null)]);
      const after = JSON.parse(await runPython(read, [file])) as unknown[][];
      expect(after).toHaveLength(expected.length);
      expect(after).toEqual(expected);
      expect(after[2497]![26]).toBe('far');
    } finally {
      await workbook.close();
    }
  });
});
