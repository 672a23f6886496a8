/**
 * Workbooks written by another program (openpyxl), written by us, checked by openpyxl again: the
 * sheet-level features they hold must survive and follow row deletes.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { entryData, readZipDirectory } from '../../../server/sources/workbook/guard/zip-directory.ts';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { runPython } from '../../helpers/openpyxl.ts';
import { PLAIN, rejection, removeTempDirs, sha, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

const MAKE = `
import sys, openpyxl
from openpyxl.formatting.rule import CellIsRule
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.workbook.defined_name import DefinedName
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Data'
ws.append(['Name', 'Qty', 'Price', 'Total'])
for i in range(1, 13):
    ws.append([f'n{i}', i, i * 1.5, f'=B{i+1}*C{i+1}'])
ws['A1'].font = Font(bold=True)
ws['A3'].hyperlink = 'https://example.com/n2'
ws.freeze_panes = 'A2'
ws.auto_filter.ref = 'A1:D13'
ws.column_dimensions['A'].width = 25
ws.conditional_formatting.add('B2:B13', CellIsRule(operator='greaterThan', formula=['5'], fill=PatternFill('solid', fgColor='FF00FF00')))
dv = DataValidation(type='whole', operator='between', formula1='0', formula2='100')
ws.add_data_validation(dv)
dv.add('B2:B13')
wb.defined_names.append(DefinedName('Prices', attr_text='Data!$C$2:$C$13'))
wb.create_sheet('Hidden').sheet_state = 'hidden'
if len(sys.argv) > 2:
    from openpyxl.worksheet.table import Table
    t = wb.create_sheet('Tbl')
    t.append(['k', 'v'])
    t.append(['a', 1])
    t.add_table(Table(displayName='T1', ref='A1:B2'))
wb.save(sys.argv[1])
`;

const LOOK = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
ws = wb['Data']
print(json.dumps({
  'states': [s.sheet_state for s in wb.worksheets],
  'links': {c.coordinate: c.hyperlink.target for row in ws.iter_rows() for c in row if c.hyperlink},
  'freeze': ws.freeze_panes,
  'filter': ws.auto_filter.ref,
  'width': ws.column_dimensions['A'].width,
  'cf': [str(r.sqref) for r in ws.conditional_formatting],
  'dv': [str(d.sqref) for d in ws.data_validations.dataValidation],
  'names': {d.name: d.attr_text for d in wb.defined_names.definedName},
  'A': [c.value for c in ws['A']],
  'D': [c.value for c in ws['D']],
}))
`;

import { writeOne } from '../../helpers/source-write.ts';

async function look(file: string) {
  return JSON.parse(await runPython(LOOK, [file]));
}

describe('workbooks written by openpyxl', () => {
  it('keep their sheet features through an append, and deletes shift them', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'foreign.xlsx');
    await runPython(MAKE, [file]);
    const source = createWorkbookSource(file);
    const snap = await source.read();
    expect(snap.tabs.map((t) => [t.sourceSheetId, t.name, t.typed.length])).toEqual([
      ['1', 'Data', 12],
      ['2', 'Hidden', 0],
    ]);

    await writeOne(source, '1', [{ op: 'append', values: { Name: 'new', Qty: 13 } }], PLAIN);
    const appended = await look(file);
    expect(appended).toMatchObject({
      states: ['visible', 'hidden'],
      links: { A3: 'https://example.com/n2' },
      freeze: 'A2',
      filter: 'A1:D13',
      width: 25,
      cf: ['B2:B13'],
      dv: ['B2:B13'], // one range: ExcelJS alone would write overlapping B10:B13 + B2:B13
      names: { Prices: 'Data!$C$2:$C$13' },
    });
    expect(appended.A.at(-1)).toBe('new');

    await writeOne(source, '1', [{ op: 'delete', row: 1 }], PLAIN);
    const deleted = await look(file);
    expect(deleted).toMatchObject({
      links: { A2: 'https://example.com/n2' },
      filter: 'A1:D12',
      cf: ['B2:B12'],
      dv: ['B2:B12'],
      names: { Prices: 'Data!$C$2:$C$12' },
    });
    expect(deleted.A.slice(0, 3)).toEqual(['Name', 'n2', 'n3']);
    expect(deleted.D.slice(1, 3)).toEqual(['=B2*C2', '=B3*C3']);
  });

  it('opens workbooks with tables (openpyxl writes absolute part targets) and keeps the table on write', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'with-table.xlsx');
    await runPython(MAKE, [file, 'table']);
    const source = createWorkbookSource(file);
    const snapshot = await source.read();
    const tbl = snapshot.tabs.find((t) => t.name === 'Tbl')!;
    expect(tbl.typed).toEqual([['a', 1]]);
    await writeOne(source, tbl.sourceSheetId, [{ op: 'update', row: 1, values: { v: 2 } }], PLAIN);
    const seen = JSON.parse(
      await runPython(
        "import json,sys,openpyxl\nws=openpyxl.load_workbook(sys.argv[1])['Tbl']\nprint(json.dumps({'tables':dict(ws.tables.items()),'B2':ws['B2'].value}))",
        [file],
      ),
    );
    expect(seen).toEqual({ tables: { T1: 'A1:B2' }, B2: 2 });
    await source.close();
  });

  it('open with a chart, and a write keeps the chart and its drawing byte for byte', async () => {
    const file = path.join(await tempDir(), 'chart.xlsx');
    await runPython(
      "import sys,openpyxl\nfrom openpyxl.chart import BarChart, Reference\nwb=openpyxl.Workbook()\nws=wb.active\nws.title='Data'\nws.append(['Month','Sales'])\nws.append(['Jan',10])\nws.append(['Feb',20])\nc=BarChart()\nc.add_data(Reference(ws,min_col=2,min_row=1,max_row=3),titles_from_data=True)\nws.add_chart(c,'D2')\nwb.save(sys.argv[1])",
      [file],
    );
    const raw = async (part: string) => {
      const bytes = await fs.readFile(file);
      const entry = readZipDirectory(bytes).find((e) => e.name === part);
      return entry && Buffer.from(entryData(bytes, entry)).toString('base64');
    };
    const chart = await raw('xl/charts/chart1.xml');
    const drawing = await raw('xl/drawings/drawing1.xml');
    expect(chart).toBeDefined();
    const source = createWorkbookSource(file);
    expect((await source.read()).tabs[0]?.typed).toEqual([
      ['Jan', 10],
      ['Feb', 20],
    ]);
    await writeOne(source, '1', [{ op: 'update', row: 2, values: { Sales: 25 } }], PLAIN);
    await source.close();
    expect(await raw('xl/charts/chart1.xml')).toBe(chart);
    expect(await raw('xl/drawings/drawing1.xml')).toBe(drawing);
    const seen = await runPython(
      "import sys,openpyxl\nws=openpyxl.load_workbook(sys.argv[1])['Data']\nprint(len(ws._charts), ws['B3'].value)",
      [file],
    );
    expect(seen.trim()).toBe('1 25');
  });

  it('a workbook that cannot be read is reported as upstream_error and never modified', async () => {
    const dir = await tempDir();
    // A valid zip (so it gets past the package preparation) whose workbook part is not XML.
    const file = path.join(dir, 'garbled.xlsx');
    await runPython(
      "import sys,zipfile,openpyxl\nwb=openpyxl.Workbook()\nwb.active.append(['Name'])\nwb.active.append(['x'])\nwb.save(sys.argv[1]+'.src')\nsrc=zipfile.ZipFile(sys.argv[1]+'.src')\nout=zipfile.ZipFile(sys.argv[1],'w')\nfor i in src.infolist():\n    out.writestr(i, b'this is not a workbook' if i.filename=='xl/workbook.xml' else src.read(i.filename))\nout.close()\nsrc.close()",
      [file],
    );
    await fs.rm(`${file}.src`);
    // And bytes that are no zip at all.
    const truncated = path.join(dir, 'truncated.xlsx');
    await fs.writeFile(truncated, (await fs.readFile(file)).subarray(0, 300));

    for (const [name, broken] of [
      ['garbled.xlsx', file],
      ['truncated.xlsx', truncated],
    ] as const) {
      const before = await sha(broken);
      const source = createWorkbookSource(broken);
      const error = await rejection(writeOne(source, '1', [{ op: 'append', values: { Name: 'x' } }], PLAIN));
      if (error.code === undefined) throw error; // not an AppError: surface it
      expect(error.code, name).toBe('upstream_error');
      expect(error.message).not.toContain(dir);
      expect(await sha(broken), name).toBe(before);
      await source.close();
    }
    expect((await fs.readdir(dir)).sort()).toEqual(['garbled.xlsx', 'truncated.xlsx']);
  });
});

describe('a sheet whose rows are stored out of order', () => {
  it('is written in place: an update lands in the row it names, once, and reads back after a reload', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'unordered.xlsx');
    // Rows 1, 3, 2 in that order in the part (valid for readers, which go by each row's number).
    await runPython(
      `import sys, zipfile
ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
row = lambda r, a, b: f'<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>{a}</t></is></c><c r="B{r}"><v>{b}</v></c></row>'
parts = {
  '[Content_Types].xml': '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
  '_rels/.rels': f'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
  'xl/workbook.xml': f'<workbook {ns} xmlns:r="{rel}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
  'xl/_rels/workbook.xml.rels': f'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
  'xl/worksheets/sheet1.xml': f'<worksheet {ns}><sheetData>{row(1, "Name", 0)}{row(3, "second", 2)}{row(2, "first", 1)}</sheetData></worksheet>',
}
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
  for name, text in parts.items(): z.writestr(name, text)`,
      [file],
    );
    const source = createWorkbookSource(file);
    try {
      expect((await source.read()).tabs[0]?.typed).toEqual([
        ['first', 1],
        ['second', 2],
      ]);
      await writeOne(source, '1', [{ op: 'update', row: 1, values: { Name: 'changed' } }], PLAIN);
      await writeOne(source, '1', [{ op: 'append', values: { Name: 'third' } }], PLAIN);
    } finally {
      await source.close();
    }
    const written = await fs.readFile(file);
    const entry = readZipDirectory(written).find((e) => e.name === 'xl/worksheets/sheet1.xml')!;
    const sheet = inflateRawSync(entryData(written, entry)).toString('utf8');
    expect(sheet.match(/<row r="\d+"/g)).toEqual(['<row r="1"', '<row r="2"', '<row r="3"', '<row r="4"']);
    const fresh = createWorkbookSource(file);
    try {
      expect((await fresh.read()).tabs[0]?.typed).toEqual([
        ['changed', 1],
        ['second', 2],
        ['third', null],
      ]);
    } finally {
      await fresh.close();
    }
    const seen = await runPython(
      `import sys, json, openpyxl
ws = openpyxl.load_workbook(sys.argv[1]).active
print(json.dumps([[c.value for c in r] for r in ws.iter_rows()]))`,
      [file],
    );
    expect(JSON.parse(seen)).toEqual([
      ['Name', 0],
      ['changed', 1],
      ['second', 2],
      ['third', null],
    ]);
  });
});
