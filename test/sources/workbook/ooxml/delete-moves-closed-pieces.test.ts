/**
 * A delete in a sheet larger than one piece of rows, after an earlier write has closed every piece: the rows
 * below move up and formulas anywhere in the sheet (above the deleted row and below it) follow, although the
 * pieces they sit in are rewritten only when the file is written (row-piece.ts `move`). Written through the
 * workbook file as the service writes, read back by openpyxl.
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
});
