/**
 * Rows deleted from a tab long enough to be held in several pieces (sheet-xml.ts keeps rows 500 to a piece),
 * with a formula in every row and, high up, formulas reading far below: a piece above the deleted row whose
 * formulas read no further is left as it is (formula-reach.ts), one whose formulas read past the row is
 * rewritten, and the pieces below are rewritten on the piece threads (piece-rewrite.ts). After each delete the
 * results the API answers must equal a full computation of the written file (saved again by openpyxl without
 * cached results), the file's formula texts must be those Excel's rules give, and every formula of every piece
 * must hold the result the API serves (the first write stores them all: uncomputed-results.ts).
 */
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const ROWS = 1_700;

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'T'
ws.append(['A', 'B', 'Product', 'Far'])
far = {2: '=SUM(A1000:A1200)', 3: '=A1600+1', 4: '=SUM(A2:A5)', 700: '=SUM(A1090:A1110)', 1500: '=A1499-A3'}
for i in range(2, ${ROWS} + 2):
    ws.append([i * 7 % 23 + 1, i % 5 + 1, f'=A{i}*B{i}', far.get(i)])
wb.save(sys.argv[1])
`;

const STRIP = `
import sys, openpyxl
openpyxl.load_workbook(sys.argv[1]).save(sys.argv[2])
`;

/** The formulas of column D (where they are) and of C's first and last rows, as openpyxl reads the file. */
const FORMULAS = `
import sys, json, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['T']
out = {}
for row in ws.iter_rows(min_row=2):
    for cell in row:
        if isinstance(cell.value, str) and cell.value.startswith('=') and (cell.column_letter == 'D' or cell.row in (2, ws.max_row)):
            out[cell.coordinate] = cell.value
print(json.dumps(out))
`;

/** Each row's A, B and C as a reader that does not calculate sees them: C is the cached result. */
const CACHED = `
import sys, json, openpyxl
ws = openpyxl.load_workbook(sys.argv[1], data_only=True)['T']
print(json.dumps([[c.value for c in row[:3]] for row in ws.iter_rows(min_row=2)]))
`;

let h: Harness;
let book: ConnectionRecord;
let file: string;

beforeAll(async () => {
  h = await startHarness();
  file = path.join(h.dir, 'pieces.xlsx');
  await runPython(MAKE, [file]);
  book = await h.connect(file);
});
afterAll(async () => {
  await h.close();
});

async function rows(of: ConnectionRecord): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let offset = 0; ; offset += 1000) {
    const res = await h.fetch(rowsPath(of, 'T', `?limit=1000&offset=${offset}`));
    expect(res.status).toBe(200);
    const page = (await res.json()) as unknown[];
    out.push(...page);
    if (page.length < 1000) return out;
  }
}

describe('rows deleted from a tab held in several pieces, with formulas reading far down', () => {
  it('shift every formula that reads at or below the row, and leave the rest as written', async () => {
    // Sheet rows (data row + 1) at each step: past the far readers' ranges, inside them, at their edges, above all.
    const deletes = [1200, 1100, 1000, 1598, 3, 501];
    let left = ROWS;
    const far = new Map([
      [2, 'SUM(A1000:A1200)'],
      [3, 'A1600+1'],
      [4, 'SUM(A2:A5)'],
      [700, 'SUM(A1090:A1110)'],
      [1500, 'A1499-A3'],
    ]);
    for (const [round, sheetRow] of deletes.entries()) {
      const res = await h.fetch(rowsPath(book, 'T', `/${sheetRow - 1}`), { method: 'DELETE' });
      expect(res.status).toBe(200);
      left--;
      const served = await rows(book);
      expect(served).toHaveLength(left);
      const fresh = path.join(h.dir, `fresh-${round}.xlsx`);
      const copy = path.join(h.dir, `copy-${round}.xlsx`);
      await copyFile(file, copy);
      await runPython(STRIP, [copy, fresh]);
      expect(served, `after deleting sheet row ${sheetRow}`).toEqual(await rows(await h.connect(fresh)));
      const formulas = JSON.parse(await runPython(FORMULAS, [copy])) as Record<string, string>;
      expect(formulas.C2).toBe('=A2*B2');
      expect(formulas[`C${left + 1}`]).toBe(`=A${left + 1}*B${left + 1}`);
      expect(formulas).toMatchObject(expectedFar(far, sheetRow));
      const cached = JSON.parse(await runPython(CACHED, [copy])) as [number, number, unknown][];
      expect(cached).toHaveLength(left);
      expect(cached.filter(([a, b, c]) => c !== a * b)).toEqual([]);
    }
  });
});

/** Excel's rule for the far readers, kept in `far` (moved and cut as the rows go): what column D must hold. */
function expectedFar(far: Map<number, string>, deleted: number): Record<string, string> {
  const moved = new Map<number, string>();
  for (const [row, text] of far) {
    if (row === deleted) continue;
    const shifted = text.replace(/A(\d+)(?::A(\d+))?/g, (_whole, top: string, bottom?: string) => {
      const t = Number(top);
      if (bottom === undefined) return t === deleted ? '#REF!' : `A${t > deleted ? t - 1 : t}`;
      const b = Number(bottom);
      const newTop = t > deleted ? t - 1 : t;
      const newBottom = b >= deleted ? b - 1 : b;
      return `A${newTop}:A${newBottom}`;
    });
    moved.set(row > deleted ? row - 1 : row, shifted);
  }
  far.clear();
  for (const [row, text] of moved) far.set(row, text);
  return Object.fromEntries([...far].map(([row, text]) => [`D${row}`, `=${text}`]));
}
