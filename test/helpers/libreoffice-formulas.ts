/**
 * Formulas computed twice from one file: openpyxl writes a workbook whose data tabs `dataScript` makes (python
 * over `wb`, its first tab `d`) and a `Summary` tab of one formula per row (`Formula`, `Value`) without results;
 * LibreOffice computes the file, and the service computes it when the tab is read over HTTP. Numbers are
 * compared to 15 significant digits, as both keep them.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, rowsPath, startHarness } from './harness.ts';
import { convertWithLibreOffice } from './libreoffice.ts';
import { runPython } from './openpyxl.ts';

const MAKE = (dataScript: string) => `
import sys, openpyxl
wb = openpyxl.Workbook()
d = wb.active
${dataScript}
s = wb.create_sheet('Summary')
s.append(['Formula', 'Value'])
for f in sys.argv[2:]:
    s.append([f, '=' + f])
wb.save(sys.argv[1])
`;

const VALUES = `
import json, sys, datetime, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], data_only=True)
def plain(v):
    # LibreOffice formats a date function's cell as a date: its serial number, as the service gives it.
    return (v - datetime.datetime(1899, 12, 30)).days if isinstance(v, datetime.datetime) else v
print(json.dumps([plain(r[1]) for r in wb['Summary'].iter_rows(min_row=2, values_only=True)]))
`;

/** A `Data` tab of five rows: numbers, tags, amounts, texts and dates (the last row's text and date blank). */
export const DATED_ROWS = `
import datetime
d.title = 'Data'
d.append(['N', 'Tag', 'Amount', 'Text', 'When'])
for row in [[1, 'a', 10, 'hello world', datetime.datetime(2024, 1, 15)],
            [2, 'b', 20, 'good morning', datetime.datetime(2024, 3, 31)],
            [3, 'a', 30, 'foo', datetime.datetime(2024, 12, 31)],
            [4, 'c', 40, 'boo', datetime.datetime(2024, 2, 29)],
            [5, 'a', 50, None, None]]:
    d.append(row)
`;

/** Writes the workbook at `file` and answers LibreOffice's results, one per formula. */
export async function formulasByLibreOffice(
  file: string,
  dataScript: string,
  formulas: readonly string[],
): Promise<unknown[]> {
  await runPython(MAKE(dataScript), [file, ...formulas]);
  const lo = path.join(path.dirname(file), `lo-${path.basename(file, '.xlsx')}`);
  try {
    return JSON.parse(await runPython(VALUES, [await convertWithLibreOffice(file, 'xlsx', lo)]));
  } finally {
    await fs.rm(lo, { recursive: true, force: true });
  }
}

/** The service's results for the file's formulas equal LibreOffice's (`expected`), formula by formula. */
export async function expectServiceAgrees(
  h: Harness,
  file: string,
  formulas: readonly string[],
  expected: readonly unknown[],
): Promise<void> {
  const book = await h.connect(file);
  const res = await h.fetch(rowsPath(book, 'Summary', '?limit=1000'));
  expect(res.status).toBe(200);
  const rows = (await res.json()) as { Formula: string; Value: unknown }[];
  expect(rows.length).toBe(formulas.length);
  // LibreOffice writes an error's text as the cached value; the service reads it the same way.
  const byLibreOffice = formulas.map((f, i) => {
    const v = expected[i];
    return [f, typeof v === 'number' ? Number(v.toPrecision(15)) : v];
  });
  expect(Object.fromEntries(formulas.map((f, i) => [f, rows[i]!.Value]))).toEqual(
    Object.fromEntries(byLibreOffice),
  );
}

/**
 * One test: the service's results for `formulas` over the tabs `dataScript` makes equal LibreOffice's, in a file
 * named `file` of a harness of its own.
 */
export function itComputesAsLibreOffice(
  title: string,
  file: string,
  dataScript: string,
  formulas: readonly string[],
): void {
  let h: Harness;
  let made: string;
  let byLibreOffice: unknown[];
  beforeAll(async () => {
    h = await startHarness();
    made = path.join(h.dir, file);
    byLibreOffice = await formulasByLibreOffice(made, dataScript, formulas);
  }, 150_000);
  afterAll(async () => {
    await h.close();
  });
  it(title, async () => {
    await expectServiceAgrees(h, made, formulas, byLibreOffice);
  });
}
