/**
 * A row delete through the surgical engine shifts what Excel shifts, checked on a workbook made by
 * openpyxl (with a shared formula put in by hand, as Excel writes them) and read back by openpyxl:
 * formulas on the tab and on other tabs, shared formulas, merged cells, conditional formats, data
 * validations, hyperlinks, comments, tables and defined names. The chart and image parts, which the write
 * does not need, stay byte-identical, and a macro workbook keeps its vbaProject.bin.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planWrite } from '../../../../server/sources/plan.ts';
import type { Mutation } from '../../../../server/sources/source.ts';
import { OoxmlDocument } from '../../../../server/sources/workbook/ooxml/ooxml-document.ts';
import { ZipArchive } from '../../../../server/sources/workbook/ooxml/zip-archive.ts';
import { runPython } from '../../../helpers/openpyxl.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-ooxml-shift-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const MAKE = `
import sys, zipfile, shutil, re
import openpyxl
from openpyxl.chart import BarChart, Reference
from openpyxl.comments import Comment
from openpyxl.drawing.image import Image
from openpyxl.formatting.rule import CellIsRule
from openpyxl.styles import PatternFill
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.table import Table
from PIL import Image as PILImage

out = sys.argv[1]
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Data'
ws.append(['Name', 'Qty', 'Double', 'Note', 'M', 'N', 'G', 'Code', 'Label'])
for i in range(1, 8):
    ws.append(['n%d' % i, i, '=B%d*2' % (i + 1), 'note%d' % i, None, None, None, 'c%d' % i, 'l%d' % i])
ws.merge_cells('E2:F3')
ws.merge_cells('E6:F7')
ws.conditional_formatting.add('B2:B8', CellIsRule(operator='greaterThan', formula=['3'], fill=PatternFill('solid', fgColor='FFFF00')))
dv = DataValidation(type='list', formula1='"a,b,c"')
ws.add_data_validation(dv)
dv.add('D2:D8')
ws['A5'].hyperlink = 'https://example.com/5'
ws['A4'].comment = Comment('on n3', 'me')
ws['A7'].comment = Comment('on n6', 'me')
ws.add_table(Table(displayName='Items', ref='H1:I8'))
wb.defined_names.append(DefinedName('Total', attr_text='Data!$B$2:$B$8'))
other = wb.create_sheet('Sum')
other['A1'] = '=SUM(Data!B2:B8)'
other['A2'] = '=Data!B6'
chart = BarChart()
chart.add_data(Reference(ws, min_col=2, min_row=1, max_row=8), titles_from_data=True)
other.add_chart(chart, 'C1')
PILImage.new('RGB', (4, 4), 'red').save(out + '.png')
other.add_image(Image(out + '.png'), 'C20')
wb.save(out)

# Make C2:C8 one shared formula, as Excel writes a filled-down column.
src = zipfile.ZipFile(out)
parts = {n: src.read(n) for n in src.namelist()}
src.close()
xml = parts['xl/worksheets/sheet1.xml'].decode()
xml = xml.replace('<f>B2*2</f>', '<f t="shared" ref="C2:C8" si="0">B2*2</f>')
xml = re.sub(r'<f>B([3-8])\\*2</f>', '<f t="shared" si="0"/>', xml)
parts['xl/worksheets/sheet1.xml'] = xml.encode()
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
    for n, b in parts.items():
        z.writestr(n, b)
`;

const LOOK = `
import json, sys
import openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
ws = wb['Data']
out = {
  'rows': [[c.value for c in r] for r in ws.iter_rows(min_row=1, max_col=4)],
  'merged': sorted(str(r) for r in ws.merged_cells.ranges),
  'cf': sorted(str(r.sqref) for r in ws.conditional_formatting),
  'dv': sorted(str(d.sqref) for d in ws.data_validations.dataValidation),
  'links': sorted(c.coordinate for row in ws.iter_rows() for c in row if c.hyperlink),
  'comments': sorted(c.coordinate + ':' + c.comment.text for row in ws.iter_rows() for c in row if c.comment),
  'tables': {t.displayName: t.ref for t in ws.tables.values()},
  'names': {n: wb.defined_names[n].attr_text for n in wb.defined_names} if hasattr(wb.defined_names, 'keys') else {d.name: d.attr_text for d in wb.defined_names.definedName},
  'sum': [wb['Sum']['A1'].value, wb['Sum']['A2'].value],
  'charts': len(wb['Sum']._charts),
}
import zipfile, re
z = zipfile.ZipFile(sys.argv[1])
vml = [n for n in z.namelist() if n.endswith('.vml')]
out['noteRows'] = sorted(int(r) for n in vml for r in re.findall(r'<(?:\\w+:)?Row>(\\d+)<', z.read(n).decode()))
print(json.dumps(out, default=str))
`;

async function make(name: string): Promise<string> {
  const file = path.join(dir, name);
  await runPython(MAKE, [file]);
  return file;
}

async function write(
  file: string,
  mutations: Mutation[],
): Promise<{ before: ZipArchive; after: ZipArchive }> {
  const bytes = fs.readFileSync(file);
  const doc = await OoxmlDocument.parse(bytes);
  const tab = doc.tabs()[0];
  if (!tab) throw new Error('no tab');
  await doc.apply(tab.sourceSheetId, planWrite(tab, mutations), { allowFormulas: true, userEntered: false });
  const out = Buffer.concat(await doc.serialize());
  fs.writeFileSync(file, out);
  return { before: ZipArchive.open(bytes), after: ZipArchive.open(out) };
}

describe('deleting rows with the surgical engine', () => {
  it('shifts formulas, merges, formats, validations, links, comments, tables and names like Excel', async () => {
    const file = await make('features.xlsx');
    const { before, after } = await write(file, [
      { op: 'delete', row: 3 }, // sheet row 4: n3
      { op: 'update', row: 1, values: { Note: 'changed' } },
      { op: 'append', values: { Name: 'n8', Qty: 8, Double: '=B8*2' } },
    ]);
    const seen = JSON.parse(await runPython(LOOK, [file]));
    expect(seen.rows).toEqual([
      ['Name', 'Qty', 'Double', 'Note'],
      ['n1', 1, '=B2*2', 'changed'],
      ['n2', 2, '=B3*2', 'note2'],
      ['n4', 4, '=B4*2', 'note4'],
      ['n5', 5, '=B5*2', 'note5'],
      ['n6', 6, '=B6*2', 'note6'],
      ['n7', 7, '=B7*2', 'note7'],
      ['n8', 8, '=B8*2', null],
    ]);
    expect(seen.merged).toEqual(['E2:F3', 'E5:F6']);
    expect(seen.cf).toEqual(['B2:B7']);
    expect(seen.dv).toEqual(['D2:D7']);
    expect(seen.links).toEqual(['A4']);
    expect(seen.comments).toEqual(['A6:on n6']);
    expect(seen.noteRows).toEqual([5]); // the note box of A6 (0-based row 5); the one of A4 went with it
    expect(seen.tables).toEqual({ Items: 'H1:I7' });
    expect(seen.names).toEqual({ Total: 'Data!$B$2:$B$7' });
    expect(seen.sum).toEqual(['=SUM(Data!B2:B7)', '=Data!B5']);
    expect(seen.charts).toBe(1);
    for (const entry of before.entries) {
      if (
        /^xl\/(charts|drawings\/drawing|media)\//.test(entry.name) ||
        /^xl\/drawings\/[^/]+\.xml$/.test(entry.name)
      ) {
        expect(after.entry(entry.name)?.local.equals(entry.local), entry.name).toBe(true);
      }
    }
    expect(before.entries.some((e) => e.name.startsWith('xl/charts/'))).toBe(true);
  });

  it("keeps a macro workbook's VBA project and every other part it does not need, byte for byte", async () => {
    const corpus = path.resolve(import.meta.dirname, '../../../fixtures/xlsx-corpus/macro01.xlsm');
    const file = path.join(dir, 'macro01.xlsm');
    fs.copyFileSync(corpus, file);
    const doc = await OoxmlDocument.parse(fs.readFileSync(file));
    const tab = doc.tabs()[0];
    if (!tab) throw new Error('no tab');
    const column = tab.header[0] ?? 'A';
    const { before, after } = await write(file, [{ op: 'append', values: { [column]: 'new' } }]);
    const vba = before.entry('xl/vbaProject.bin');
    expect(vba).toBeDefined();
    expect(after.entry('xl/vbaProject.bin')?.local.equals(vba?.local as Buffer)).toBe(true);
    const changed = after.entries
      .filter((e) => !before.entry(e.name)?.local.equals(e.local))
      .map((e) => e.name);
    expect(
      changed.every((name) => /^xl\/(worksheets\/sheet\d+|workbook|styles)\.xml$/.test(name)),
      changed.join(),
    ).toBe(true);
    const reread = (await OoxmlDocument.parse(fs.readFileSync(file))).tabs()[0];
    expect(reread?.typed.at(-1)?.[0]).toBe('new');
  });
});
