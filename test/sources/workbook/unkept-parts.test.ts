/**
 * Parts the service does not understand (charts, pivot tables, a macro project, custom XML) are no reason to
 * refuse a write: every write copies them with their compressed bytes untouched, and other programs still
 * read the rows it wrote.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { entryData, readZipDirectory } from '../../../server/sources/workbook/guard/zip-directory.ts';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { runPython } from '../../helpers/openpyxl.ts';
import { PLAIN, removeTempDirs, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

/**
 * openpyxl writes a tab with a bar chart; then a pivot table definition and cache, a VBA project and a
 * custom XML item are added to the package with their relationships and content types, as Excel keeps them.
 */
const MAKE = `
import sys, zipfile, openpyxl
from openpyxl.chart import BarChart, Reference
file = sys.argv[1]
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Data'
ws.append(['Month', 'Sales'])
for m, v in [('Jan', 10), ('Feb', 20), ('Mar', 30)]:
    ws.append([m, v])
chart = BarChart()
chart.add_data(Reference(ws, min_col=2, min_row=1, max_row=4), titles_from_data=True)
ws.add_chart(chart, 'D2')
wb.save(file + '.src')
extra = {
    'xl/pivotCache/pivotCacheDefinition1.xml': b'<?xml version="1.0" encoding="UTF-8"?><pivotCacheDefinition xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" refreshOnLoad="1"><cacheSource type="worksheet"><worksheetSource ref="A1:B4" sheet="Data"/></cacheSource><cacheFields count="0"/></pivotCacheDefinition>',
    'xl/pivotTables/pivotTable1.xml': b'<?xml version="1.0" encoding="UTF-8"?><pivotTableDefinition xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" name="P1" cacheId="1" dataCaption="Values"><location ref="A1:B2" firstHeaderRow="1" firstDataRow="1" firstDataCol="1"/></pivotTableDefinition>',
    'xl/vbaProject.bin': bytes(range(256)) * 8,
    'customXml/item1.xml': b'<?xml version="1.0"?><sheetport-test xmlns="urn:example:unknown"><kept/></sheetport-test>',
}
with zipfile.ZipFile(file + '.src') as zin, zipfile.ZipFile(file, 'w', zipfile.ZIP_DEFLATED) as zout:
    for item in zin.infolist():
        data = zin.read(item.filename)
        if item.filename == '[Content_Types].xml':
            data = data.replace(b'</Types>',
                b'<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/>'
                b'<Override PartName="/xl/pivotCache/pivotCacheDefinition1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.pivotCacheDefinition+xml"/>'
                b'<Override PartName="/xl/pivotTables/pivotTable1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.pivotTable+xml"/>'
                b'</Types>')
        if item.filename == 'xl/_rels/workbook.xml.rels':
            data = data.replace(b'</Relationships>',
                b'<Relationship Id="rIdVba" Type="http://schemas.microsoft.com/office/2006/relationships/vbaProject" Target="vbaProject.bin"/>'
                b'<Relationship Id="rIdPc" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/pivotCacheDefinition" Target="pivotCache/pivotCacheDefinition1.xml"/>'
                b'</Relationships>')
        zout.writestr(item, data)
    for name, data in extra.items():
        zout.writestr(name, data)
`;

const LOOK = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
ws = wb['Data']
print(json.dumps({'rows': [list(r) for r in ws.iter_rows(values_only=True)], 'charts': len(ws._charts)}))
`;

import { writeOne } from '../../helpers/source-write.ts';

/** Raw (still compressed) bytes of every zip entry, hashed: equal hashes mean the entry was copied as it was. */
async function rawEntries(file: string): Promise<Map<string, string>> {
  const bytes = await fs.readFile(file);
  return new Map(
    readZipDirectory(bytes).map((e) => [
      e.name,
      createHash('sha256').update(entryData(bytes, e)).digest('hex'),
    ]),
  );
}

const UNKNOWN_PARTS = [
  'xl/charts/chart1.xml',
  'xl/drawings/drawing1.xml',
  'xl/worksheets/_rels/sheet1.xml.rels',
  'xl/pivotCache/pivotCacheDefinition1.xml',
  'xl/pivotTables/pivotTable1.xml',
  'xl/vbaProject.bin',
  'customXml/item1.xml',
];

describe('workbooks with charts, pivots, macros and unknown parts', () => {
  it('take appends, updates and deletes; every part the write did not need keeps its bytes', async () => {
    const file = path.join(await tempDir(), 'kept.xlsx');
    await runPython(MAKE, [file]);
    await fs.rm(`${file}.src`);
    const before = await rawEntries(file);
    for (const part of UNKNOWN_PARTS) expect(before.has(part), part).toBe(true);

    const source = createWorkbookSource(file);
    const snapshot = await source.read();
    expect(snapshot.tabs[0]!.typed).toEqual([
      ['Jan', 10],
      ['Feb', 20],
      ['Mar', 30],
    ]);
    await writeOne(source, '1', [{ op: 'append', values: { Month: 'Apr', Sales: 40 } }], PLAIN);
    await writeOne(source, '1', [{ op: 'update', row: 1, values: { Sales: 11 } }], PLAIN);
    await writeOne(source, '1', [{ op: 'delete', row: 2 }], PLAIN);
    await source.close();

    const after = await rawEntries(file);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const part of UNKNOWN_PARTS) expect(after.get(part), part).toBe(before.get(part));
    // Only the tab's sheet changed (the workbook part may gain its recalculation flag).
    const changed = [...after].filter(([name, hash]) => before.get(name) !== hash).map(([name]) => name);
    expect(changed.filter((n) => n !== 'xl/workbook.xml')).toEqual(['xl/worksheets/sheet1.xml']);

    expect(JSON.parse(await runPython(LOOK, [file]))).toEqual({
      rows: [
        ['Month', 'Sales'],
        ['Jan', 11],
        ['Mar', 30],
        ['Apr', 40],
      ],
      charts: 1,
    });
  });
});
