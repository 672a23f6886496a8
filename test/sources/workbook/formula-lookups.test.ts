/**
 * Lookups in every row, the commonest formulas of an order sheet: each order's rate from a rates tab
 * (`VLOOKUP(A2,Rates!A:B,2,FALSE)`, `MATCH(A2,Rates!A:A,0)`), how often its code is ordered
 * (`COUNTIF(A:A,A2)`), its code's total (`SUMIF(A:A,A2,B:B)`) and its code's total in its month
 * (`SUMIFS(B:B,A:A,A2,H:H,H2)`). Each read its whole range once per row:
 * 30,000 rows of them were minutes of the service's thread to open or to write. They are answered from an index
 * of the range (formulas/lookup-index.ts). Checked over HTTP on a file openpyxl writes (no cached results): when
 * the file is read, after a rate changes and after an order's code changes, through the API and as the cached
 * values openpyxl reads back from the saved file.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const RATES = 30_000;
const ORDERS = 30_000;

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook(write_only=True)
orders = wb.create_sheet('Orders')
orders.append(['Code', 'Qty', 'Rate', 'Line', 'Seen', 'CodeQty', 'Where', 'Month', 'MonthQty'])
for j in range(1, ${ORDERS} + 1):
    r = j + 1
    code = 'NOPE' if j % 1000 == 0 else f'C{(j * 7919) % ${RATES} % 5000 + 1}'
    orders.append([code, j % 5 + 1, f'=VLOOKUP(A{r},Rates!A:B,2,FALSE)', f'=B{r}*C{r}',
                   f'=COUNTIF(A:A,A{r})', f'=SUMIF(A:A,A{r},B:B)', f'=MATCH(A{r},Rates!A:A,0)',
                   j % 12 + 1, f'=SUMIFS(B:B,A:A,A{r},H:H,H{r})'])
rates = wb.create_sheet('Rates')
rates.append(['Code', 'Rate'])
for i in range(1, ${RATES} + 1):
    rates.append([f'C{i}', i % 97 + 0.5])
wb.save(sys.argv[1])
`;

const CACHED = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], data_only=True, read_only=True)
rows = [[c.value for c in r] for r in wb['Orders'].iter_rows(min_row=2)]
print(json.dumps([rows[int(i)] for i in sys.argv[2:]]))
`;

interface Order {
  Code: string;
  Qty: number;
  Rate: number | string;
  Line: number | string;
  Seen: number;
  CodeQty: number;
  Where: number | string;
  Month: number;
  MonthQty: number;
}

/** The workbook as a model: what every formula should give. */
const codes = Array.from({ length: ORDERS }, (_, k) =>
  (k + 1) % 1000 === 0 ? 'NOPE' : `C${((((k + 1) * 7919) % RATES) % 5000) + 1}`,
);
const qty = (k: number) => ((k + 1) % 5) + 1;
const month = (k: number) => ((k + 1) % 12) + 1;
const rates = new Map(Array.from({ length: RATES }, (_, i) => [`C${i + 1}`, ((i + 1) % 97) + 0.5]));

function expected(k: number): Order {
  const code = codes[k]!;
  const rate = rates.get(code);
  let seen = 0;
  let total = 0;
  let inMonth = 0;
  codes.forEach((c, i) => {
    if (c === code) {
      seen++;
      total += qty(i);
      if (month(i) === month(k)) inMonth += qty(i);
    }
  });
  return {
    Code: code,
    Qty: qty(k),
    Rate: rate ?? '#N/A',
    Line: rate === undefined ? '#N/A' : Number((qty(k) * rate).toPrecision(15)),
    Seen: seen,
    CodeQty: total,
    Where: rate === undefined ? '#N/A' : Number(code.slice(1)) + 1,
    Month: month(k),
    MonthQty: inMonth,
  };
}

describe(`lookups in every row of ${ORDERS} orders over ${RATES} rates`, () => {
  let h: Harness;
  let book: ConnectionRecord;
  let file: string;

  beforeAll(async () => {
    h = await startHarness();
    file = path.join(h.dir, 'orders.xlsx');
    await runPython(MAKE, [file]);
    book = await h.connect(file);
  }, 60_000);
  afterAll(async () => {
    await h.close();
  });

  const order = async (k: number): Promise<Order> => {
    const res = await h.fetch(`${rowsPath(book, 'Orders')}?limit=1&offset=${k}`);
    expect(res.status).toBe(200);
    return (await res.json())[0];
  };
  const expectOrders = async (ks: number[], saved: boolean) => {
    for (const k of ks) expect(await order(k)).toEqual(expected(k));
    if (!saved) return;
    const cached = JSON.parse(await runPython(CACHED, [file, ...ks.map(String)]));
    expect(cached).toEqual(ks.map((k) => Object.values(expected(k))));
  };
  const patch = async (tab: string, row: number, values: object) => {
    const res = await h.fetch(rowsPath(book, tab, `/${row}`), {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(values),
    });
    expect(res.status).toBe(200);
  };

  it('are computed when the file is read', async () => {
    await expectOrders([0, 1, 998, 999, ORDERS / 2, ORDERS - 1], false);
  });

  it("follow a rate's change to every order of its code, through the API and in the saved file", async () => {
    const code = codes[1]!;
    const rateRow = Number(code.slice(1)); // API row of the rates tab
    await patch('Rates', rateRow, { Rate: 1234.25 });
    rates.set(code, 1234.25);
    const same = codes.flatMap((c, k) => (c === code ? [k] : [])).slice(0, 3);
    await expectOrders([...same, 0, 999], true);
  }, 60_000);

  it("follow an order's new code to the counts and totals of both codes", async () => {
    const before = codes[0]!;
    const after = codes[2]!;
    await patch('Orders', 1, { Code: after });
    codes[0] = after;
    const touched = codes.flatMap((c, k) => (c === before || c === after ? [k] : [])).slice(0, 4);
    await expectOrders([...touched, 999, ORDERS - 1], true);
  }, 60_000);
});
