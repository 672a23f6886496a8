/**
 * An independent reader for written .xlsx files: Debian's openpyxl via /usr/bin/python3 (the `python3`
 * on PATH is a different Python without it). Tests use it to check that what ExcelJS wrote is what Excel
 * would see, not just what ExcelJS reads back.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface OpenpyxlCell {
  /** Formula text (`=E2*F2`) for formula cells, else the value (dates as ISO strings). */
  value: unknown;
  /** The cached result, as `data_only=True` sees it. */
  cached: unknown;
  type: string;
  numFmt: string;
  bold: boolean;
  fill: string | null;
}

export interface OpenpyxlSheet {
  name: string;
  merged: string[];
  widths: Record<string, number>;
  freeze: string | null;
  maxRow: number;
  cells: Record<string, OpenpyxlCell>;
}

const SCRIPT = `
import datetime, json, sys
import openpyxl

def plain(v):
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    return v

wb = openpyxl.load_workbook(sys.argv[1])
cached = openpyxl.load_workbook(sys.argv[1], data_only=True)
sheets = []
for ws in wb.worksheets:
    values = cached[ws.title]
    cells = {}
    for row in ws.iter_rows():
        for c in row:
            if c.value is None and not c.has_style:
                continue
            fill = None
            if c.fill is not None and c.fill.fill_type:
                fill = c.fill.fgColor.rgb if isinstance(c.fill.fgColor.rgb, str) else str(c.fill.fgColor.rgb)
            cells[c.coordinate] = {
                'value': plain(c.value),
                'cached': plain(values[c.coordinate].value),
                'type': c.data_type,
                'numFmt': c.number_format,
                'bold': bool(c.font is not None and c.font.b),
                'fill': fill,
            }
    sheets.append({
        'name': ws.title,
        'merged': sorted(str(r) for r in ws.merged_cells.ranges),
        'widths': {k: d.width for k, d in ws.column_dimensions.items() if d.width},
        'freeze': ws.freeze_panes,
        'maxRow': ws.max_row,
        'cells': cells,
    })
print(json.dumps({'sheets': sheets}, default=str))
`;

/** Run a Python snippet with openpyxl available; `sys.argv[1:]` are `args`. Returns stdout. */
export async function runPython(script: string, args: string[] = []): Promise<string> {
  const { stdout } = await run('/usr/bin/python3', ['-c', script, ...args], { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

export async function readWithOpenpyxl(file: string): Promise<{ sheets: OpenpyxlSheet[] }> {
  return JSON.parse(await runPython(SCRIPT, [file])) as { sheets: OpenpyxlSheet[] };
}

/** A cell of `writeTableWithOpenpyxl`: a JSON value, or `{date: ISO text}` for a date cell. */
export type TableCell = string | number | boolean | null | { date: string };

/** A workbook of one tab, `header` then `rows`, written by openpyxl (another program than SheetPort). */
export async function writeTableWithOpenpyxl(
  file: string,
  tab: string,
  header: readonly string[],
  rows: readonly (readonly TableCell[])[],
): Promise<void> {
  await runPython(
    `
import sys, json, datetime, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = sys.argv[2]
ws.append(json.loads(sys.argv[3]))
for row in json.loads(sys.argv[4]):
    ws.append([datetime.datetime.fromisoformat(c['date']) if isinstance(c, dict) else c for c in row])
wb.save(sys.argv[1])
`,
    [file, tab, JSON.stringify(header), JSON.stringify(rows)],
  );
}

/** The values of a tab's rows under its header, as openpyxl reads the saved file (dates as ISO text). */
export async function readTableWithOpenpyxl(file: string, tab: string): Promise<unknown[][]> {
  const out = await runPython(
    `
import sys, json, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])[sys.argv[2]]
rows = [list(r) for r in ws.iter_rows(min_row=2, values_only=True)]
while rows and all(v is None for v in rows[-1]):
    rows.pop()
print(json.dumps(rows, default=str))
`,
    [file, tab],
  );
  return JSON.parse(out) as unknown[][];
}
