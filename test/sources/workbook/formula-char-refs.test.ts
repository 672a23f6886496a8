/**
 * Formulas whose text the file spells with XML character or entity references (openpyxl writes a tab named
 * `Été` as `'&#201;t&#233;'!B2:B6`; other generators use hex references and `&apos;`) read, move and compute
 * like the same formula written in plain text (LibreOffice's form): checked on files made by openpyxl, by
 * LibreOffice from it, and by a generator writing hex references, after a row delete through the API, and
 * read back by openpyxl.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { convertWithLibreOffice } from '../../helpers/libreoffice.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const MAKE = `
import sys, openpyxl
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.table import Table
wb = openpyxl.Workbook()
summary = wb.active
summary.title = 'Summary'
summary.append(['What', 'Value'])
summary.append(['sum', "=SUM('Été'!B2:B4)"])
summary.append(['last', "='Été'!B5"])
summary.append(['named', '=SUM(Nombres)'])
summary.append(['table', '=SUM(Données[Qté])'])
ete = wb.create_sheet('Été')
ete.append(['Name', 'Qté'])
for i in range(1, 6):
    ete.append(['r%d' % i, i])
ete.add_table(Table(displayName='Données', ref='A1:B6'))
wb.defined_names.append(DefinedName('Nombres', attr_text="'Été'!$B$2:$B$4"))
wb.save(sys.argv[1])
`;

/** The same workbook as a generator writing hex character references and `&apos;` would write it. */
const HEX = `
import sys, zipfile, re
src, out = sys.argv[1], sys.argv[2]
def hexed(xml):
    def one(m):
        body = m.group(2)
        body = re.sub(r'&#(\\d+);', lambda c: '&#x%X;' % int(c.group(1)), body)
        return m.group(1) + body.replace("'", '&apos;') + m.group(3)
    return re.sub(r'(<f>|<definedName[^>]*>)(.*?)(</f>|</definedName>)', one, xml)
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as zout:
    for item in zin.infolist():
        data = zin.read(item.filename)
        if item.filename.startswith('xl/worksheets/') or item.filename == 'xl/workbook.xml':
            data = hexed(data.decode()).encode()
        zout.writestr(item, data)
`;

const READ = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
values = openpyxl.load_workbook(sys.argv[1], data_only=True)
print(json.dumps({
  'formulas': [c.value for c in wb['Summary']['B'][1:5]],
  'values': [c.value for c in values['Summary']['B'][1:5]],
  'name': wb.defined_names['Nombres'].attr_text,
}))
`;

let h: Harness;
const files: Record<string, string> = {};

beforeAll(async () => {
  h = await startHarness();
  files.openpyxl = path.join(h.dir, 'openpyxl.xlsx');
  await runPython(MAKE, [files.openpyxl]);
  files.hex = path.join(h.dir, 'hex.xlsx');
  await runPython(HEX, [files.openpyxl, files.hex]);
  files.libreoffice = path.join(h.dir, 'libreoffice.xlsx');
  await fs.rename(
    await convertWithLibreOffice(files.openpyxl, 'xlsx', path.join(h.dir, 'lo')),
    files.libreoffice,
  );
}, 150_000);
afterAll(async () => {
  await h.close();
});

describe.each(['openpyxl', 'hex', 'libreoffice'])('a tab named Été in formulas written by %s', (maker) => {
  it('is computed, and its references move when a row of Été is deleted', async () => {
    const file = files[maker] as string;
    const book = await h.connect(file);
    const before = await h.fetch(rowsPath(book, 'Summary'));
    expect(await before.json()).toEqual([
      { What: 'sum', Value: 6 },
      { What: 'last', Value: 4 },
      { What: 'named', Value: 6 },
      { What: 'table', Value: 15 },
    ]);

    const del = await h.fetch(rowsPath(book, 'Été', '/1'), { method: 'DELETE' });
    expect(del.status).toBe(200);

    const after = await h.fetch(rowsPath(book, 'Summary'));
    expect(await after.json()).toEqual([
      { What: 'sum', Value: 5 },
      { What: 'last', Value: 4 },
      { What: 'named', Value: 5 },
      { What: 'table', Value: 14 },
    ]);
    const formulas = await h.fetch(rowsPath(book, 'Summary', '?values=formula'));
    // LibreOffice writes a tab name that needs no quotes without them.
    const tab = maker === 'libreoffice' ? 'Été' : "'Été'";
    const moved = [`=SUM(${tab}!B2:B3)`, `=${tab}!B4`, '=SUM(Nombres)', '=SUM(Données[Qté])'];
    expect((await formulas.json()).map((r: { Value: string }) => r.Value)).toEqual(moved);

    const read = JSON.parse(await runPython(READ, [file]));
    expect(read.formulas).toEqual(moved);
    expect(read.values).toEqual([5, 4, 5, 14]);
    expect(read.name).toBe(`${tab}!$B$2:$B$3`);
  });
});
