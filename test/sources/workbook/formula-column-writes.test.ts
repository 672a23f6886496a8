/**
 * A tab with a formula in every row (a total column, as openpyxl writes it: no cached results) and a total of it
 * on another tab, written again and again through the API: each update's own row and the other tab's sum are
 * computed again, an append leaves the formulas where they were, and the file holds every result for a reader
 * that does not calculate (openpyxl). Writes that keep every formula where it was take the common write's path
 * (simple-write-tab.ts) and the recalculation's index of formulas kept from write to write (recalculation.ts):
 * what this checks is that the results stay right across those writes.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const ROWS = 40;

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Orders'
ws.append(['Qty', 'Price', 'Total'])
for i in range(2, ${ROWS} + 2):
    ws.append([i, 1.5, f'=A{i}*B{i}'])
summary = wb.create_sheet('Summary')
summary.append(['What', 'Value'])
summary.append(['total', '=SUM(Orders!C2:C${ROWS + 1})'])
wb.save(sys.argv[1])
`;

const CACHED = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], data_only=True)
print(json.dumps({name: [[c.value for c in r] for r in wb[name].iter_rows(min_row=2)] for name in wb.sheetnames}))
`;

let h: Harness;
let book: ConnectionRecord;
let file: string;

beforeAll(async () => {
  h = await startHarness();
  file = path.join(h.dir, 'totals.xlsx');
  await runPython(MAKE, [file]);
  book = await h.connect(file);
});
afterAll(async () => {
  await h.close();
});

async function send(method: string, suffix: string, body: unknown): Promise<void> {
  const res = await h.fetch(rowsPath(book, 'Orders', suffix), {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, `${method} ${suffix}`).toBeLessThan(300);
}

async function rows(sheet: string): Promise<Record<string, unknown>[]> {
  const res = await h.fetch(rowsPath(book, sheet, `?limit=${ROWS + 10}`));
  expect(res.status).toBe(200);
  return res.json();
}

describe('a tab with a formula in every row, written again and again', () => {
  it('computes each written row and the total on the other tab after every write, and caches them in the file', async () => {
    const qty = Array.from({ length: ROWS }, (_, i) => i + 2);
    const expectTotals = async () => {
      const orders = await rows('Orders');
      expect(orders.slice(0, ROWS).map((r) => r.Total)).toEqual(qty.map((q) => q * 1.5));
      const sum = qty.reduce((a, b) => a + b, 0) * 1.5;
      expect(await rows('Summary')).toEqual([{ What: 'total', Value: sum }]);
      return orders;
    };
    await expectTotals();
    for (const [row, value] of [
      [3, 100],
      [7, 8],
      [3, 5],
      [ROWS, 1],
    ] as const) {
      await send('PATCH', `/${row}`, { Qty: value });
      qty[row - 1] = value;
      await expectTotals();
    }
    // An append past the summed range: the formulas stay where they were, the new row has none.
    await send('POST', '', { Qty: 9, Price: 2 });
    const orders = await expectTotals();
    expect(orders[ROWS]).toEqual({ Qty: 9, Price: 2, Total: null });
    await send('PATCH', '/2', { Qty: 30 });
    qty[1] = 30;
    await expectTotals();

    const cached = JSON.parse(await runPython(CACHED, [file])) as Record<string, unknown[][]>;
    expect(cached.Orders!.slice(0, ROWS).map((r) => r[2])).toEqual(qty.map((q) => q * 1.5));
    expect(cached.Orders![ROWS]).toEqual([9, 2, null]);
    expect(cached.Summary![0]).toEqual(['total', qty.reduce((a, b) => a + b, 0) * 1.5]);
  });
});
