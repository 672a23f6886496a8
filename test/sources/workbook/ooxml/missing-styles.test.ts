/**
 * Some generators save a workbook without a styles part. A write that needs a number format (a date, a
 * percent) adds the part with its relationship and content type, and other readers see the formats.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkbookSource } from '../../../../server/sources/workbook/index.ts';
import { runPython } from '../../../helpers/openpyxl.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

/** An openpyxl workbook with styles.xml, its relationship and its content type taken out. */
const MAKE = `
import re, sys, zipfile, openpyxl
file = sys.argv[1]
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Data'
ws.append(['Name', 'When', 'Share'])
ws.append(['a', None, None])
wb.save(file + '.src')
with zipfile.ZipFile(file + '.src') as zin, zipfile.ZipFile(file, 'w', zipfile.ZIP_DEFLATED) as zout:
    for item in zin.infolist():
        if item.filename == 'xl/styles.xml':
            continue
        data = zin.read(item.filename)
        data = re.sub(rb'<Override[^>]*styles\\.xml"[^>]*/>', b'', data)
        data = re.sub(rb'<Relationship[^>]*styles\\.xml"[^>]*/>', b'', data)
        # openpyxl writes s="0" on no cell, but make sure no cell points into the missing part.
        data = re.sub(rb' s="\\d+"', b'', data) if item.filename.startswith('xl/worksheets/') else data
        zout.writestr(item, data)
`;

const LOOK = `
import json, sys, zipfile, openpyxl
z = zipfile.ZipFile(sys.argv[1])
ws = openpyxl.load_workbook(sys.argv[1])['Data']
print(json.dumps({
  'parts': sorted(n for n in z.namelist() if 'styles' in n),
  'types': 'styles.xml' in z.read('[Content_Types].xml').decode(),
  'rels': 'styles.xml' in z.read('xl/_rels/workbook.xml.rels').decode(),
  'B3': [str(ws['B3'].value), ws['B3'].number_format],
  'C3': [ws['C3'].value, ws['C3'].number_format],
}))
`;

import { writeOne } from '../../../helpers/source-write.ts';

describe('a workbook without a styles part', () => {
  it('takes a date and a percent write: the styles part is added and wired in', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sheetport-no-styles-'));
    dirs.push(dir);
    const file = path.join(dir, 'bare.xlsx');
    await runPython(MAKE, [file]);
    await fs.rm(`${file}.src`);
    expect(JSON.parse(await runPython(LOOK.replace(/\n {2}'B3'[\s\S]*?\n}\)\)/, '\n}))'), [file]))).toEqual({
      parts: [],
      types: false,
      rels: false,
    });

    const source = createWorkbookSource(file);
    const result = await writeOne(
      source,
      '1',
      [{ op: 'append', values: { Name: 'b', When: '2024-03-01', Share: '15%' } }],
      { allowFormulas: false, userEntered: true },
    );
    expect(result.snapshot.tabs[0]?.typed.at(-1)).toEqual(['b', '2024-03-01', 0.15]);
    await source.close();

    expect(JSON.parse(await runPython(LOOK, [file]))).toEqual({
      parts: ['xl/styles.xml'],
      types: true,
      rels: true,
      B3: ['2024-03-01 00:00:00', 'yyyy-mm-dd'],
      C3: [0.15, '0%'],
    });
    // A second source reads the file back the same way (the part is found through the new relationship).
    const again = createWorkbookSource(file);
    expect((await again.read()).tabs[0]?.typed.at(-1)).toEqual(['b', '2024-03-01', 0.15]);
    await again.close();
  });
});
