/**
 * The written file, read by a program that is not SheetPort: Python's openpyxl (read-only mode) for .xlsx and
 * Python's csv module for .csv. It counts the data rows under the header, the rows the benchmark appended, and
 * reads the cell the outside edit changed.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Kind } from './options.ts';

const PYTHON = '/usr/bin/python3';

const SCRIPT = `
import csv, json, sys
kind, path, field, marker = sys.argv[1:5]
if kind == 'xlsx':
    import openpyxl
    wb = openpyxl.load_workbook(path, read_only=True)
    rows = wb.worksheets[0].iter_rows(values_only=True)
else:
    f = open(path, newline='', encoding='utf-8')
    rows = csv.reader(f)
header = list(next(rows))
column = header.index(field)
count = appended = 0
first = None
for row in rows:
    if not any(v not in (None, '') for v in row):
        continue
    count += 1
    if first is None:
        first = row[column]
    if row[column] == marker:
        appended += 1
print(json.dumps({'rows': count, 'appended': appended, 'first': first}))
`;

export interface FileCheck {
  rows: number;
  /** Rows whose `field` holds the marker the benchmark's appends wrote. */
  appended: number;
  /** The first data row's `field`. */
  first: unknown;
}

export async function checkFile(kind: Kind, file: string, field: string, marker: string): Promise<FileCheck> {
  const { stdout } = await promisify(execFile)(PYTHON, ['-c', SCRIPT, kind, file, field, marker], {
    timeout: 900_000,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as FileCheck;
}
