/**
 * A formula that is not an array formula reads its own row of a column it computes (Excel's implicit
 * intersection, formulas/evaluator.ts): `=A:A*2` or `=IF(A:A>2,"big","small")` written down a column, `=Qty*Price`
 * over named columns; an array formula (`t="array"`) shows its first value. openpyxl writes the file without
 * results; LibreOffice computes it, and the service's values over HTTP must equal LibreOffice's, cell by cell.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { convertWithLibreOffice } from '../../helpers/libreoffice.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const FORMULAS: Record<string, string> = {
  Double: '=A:A*2',
  Size: '=IF(A:A>2,"big","small")',
  Amount: '=A2:A6*B2:B6',
  Label: '=C:C&"-"&A:A',
  Named: '=Qty*Price',
  Length: '=LEN(C2:C6)',
  Whole: '=$B$2:$B$6+1',
  Outside: '=$B$3:$B$5*2',
};

const MAKE = `
import json, sys, openpyxl
from openpyxl.workbook.defined_name import DefinedName
formulas = json.loads(sys.argv[2])
wb = openpyxl.Workbook()
d = wb.active
d.title = 'Data'
d.append(['Qty', 'Price', 'Name'] + list(formulas) + ['Array'])
for r, (qty, price, name) in enumerate([(1, 10, 'a'), (2, 20, 'bb'), (3, 30, 'ccc'), (4, 40, 'dd'), (5, 50, 'e')], 2):
    d.append([qty, price, name] + list(formulas.values()))
d['L4'] = '=B2:B6*10'
d.formula_attributes['L4'] = {'t': 'array', 'ref': 'L4'}
d['L5'] = '=A2:A6*100'
d.formula_attributes['L5'] = {'t': 'array', 'ref': 'L5'}
wb.defined_names.append(DefinedName('Qty', attr_text='Data!$A$2:$A$6'))
wb.defined_names.append(DefinedName('Price', attr_text='Data!$B$2:$B$6'))
wb.save(sys.argv[1])
`;

const VALUES = `
import json, sys, openpyxl
d = openpyxl.load_workbook(sys.argv[1], data_only=True)['Data']
print(json.dumps([[c.value for c in row] for row in d.iter_rows(min_row=2, max_row=6, min_col=4, max_col=12)]))
`;

let h: Harness;
let file: string;
let byLibreOffice: unknown[][];

beforeAll(async () => {
  h = await startHarness();
  file = path.join(h.dir, 'intersection.xlsx');
  await runPython(MAKE, [file, JSON.stringify(FORMULAS)]);
  const lo = path.join(h.dir, 'lo');
  byLibreOffice = JSON.parse(await runPython(VALUES, [await convertWithLibreOffice(file, 'xlsx', lo)]));
  await fs.rm(lo, { recursive: true, force: true });
}, 150_000);
afterAll(async () => {
  await h.close();
});

it("shows each row's cell of a column a formula computes, and an array formula's first value, as LibreOffice", async () => {
  const book = await h.connect(file);
  const rows = (await (await h.fetch(rowsPath(book, 'Data'))).json()) as Record<string, unknown>[];
  const names = [...Object.keys(FORMULAS), 'Array'];
  const service = rows.map((row) => names.map((name) => row[name] ?? null));
  expect(service).toEqual(byLibreOffice);
  expect(byLibreOffice.map((row) => row[0])).toEqual([2, 4, 6, 8, 10]); // what each row reads: its own
  expect(byLibreOffice[2]![names.length - 1]).toBe(100); // the array formula in row 4: B2*10, its first value
});

it('computes each row again after a write from its own row', async () => {
  const book = await h.connect(file);
  const res = await h.fetch(rowsPath(book, 'Data', '/2'), {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Qty: 7 }),
  });
  expect(res.status).toBe(200);
  const rows = (await (await h.fetch(rowsPath(book, 'Data'))).json()) as Record<string, unknown>[];
  expect(rows.map((row) => row.Double)).toEqual([2, 14, 6, 8, 10]);
  expect(rows.map((row) => row.Named)).toEqual([10, 140, 90, 160, 250]);
  expect(rows.map((row) => row.Size)).toEqual(['small', 'big', 'big', 'big', 'big']);
  // The array formula in row 5 reads the column written to: computed again, it still shows its first value.
  expect(rows.map((row) => row.Array)).toEqual([null, null, 100, 100, null]);
});
