/**
 * A running balance (`=B2+A3` down a tab, each row's formula reading the row above's), the commonest chain of
 * formulas: a change at its top reaches every row below, one link at a time. Following the chain looked every
 * formula over once per link: over a minute of the service's thread for one cell of this 100,000-row ledger,
 * every read waiting (each write here timed out). Now each changed row is followed once
 * (ooxml/formula-readers.ts). Checked over HTTP on a file
 * openpyxl writes (no cached results), after an update and a delete at the top, through the API and as the
 * cached values openpyxl reads back from the saved file; a summary on the tab before reads the chain's end.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const ROWS = 100_000;
const amount = (row: number) => (row % 10) + 1; // sheet row `row`

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook(write_only=True)
summary = wb.create_sheet('Summary')
summary.append(['What', 'Value'])
summary.append(['closing balance', '=Ledger!B${ROWS + 1}'])
ws = wb.create_sheet('Ledger')
ws.append(['Amount', 'Balance'])
ws.append([${amount(2)}, '=A2'])
for r in range(3, ${ROWS} + 2):
    ws.append([r % 10 + 1, f'=B{r - 1}+A{r}'])
wb.save(sys.argv[1])
`;

const CACHED = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], data_only=True, read_only=True)
rows = [[c.value for c in r] for r in wb['Ledger'].iter_rows(min_row=2)]
print(json.dumps([rows[0], rows[len(rows) // 2], rows[-1]]))
`;

describe(`a running balance down ${ROWS} rows`, () => {
  let h: Harness;
  let book: ConnectionRecord;
  let file: string;

  beforeAll(async () => {
    h = await startHarness();
    file = path.join(h.dir, 'ledger.xlsx');
    await runPython(MAKE, [file]);
    book = await h.connect(file);
  }, 60_000);
  afterAll(async () => {
    await h.close();
  });

  /** Amounts of the data rows now, sheet row 2 first. */
  let amounts = Array.from({ length: ROWS }, (_, i) => amount(i + 2));
  const balanceAt = (i: number) => amounts.slice(0, i + 1).reduce((a, b) => a + b, 0);

  const rowAt = async (offset: number) => {
    const res = await h.fetch(`${rowsPath(book, 'Ledger')}?limit=1&offset=${offset}`);
    expect(res.status).toBe(200);
    return (await res.json())[0] as { Amount: number; Balance: number };
  };
  const closing = async () => {
    const res = await h.fetch(rowsPath(book, 'Summary'));
    expect(res.status).toBe(200);
    return (await res.json())[0].Value;
  };
  const expectBalances = async () => {
    const n = amounts.length;
    // The summary, on the tab before, reads the chain's end: computed after the chain, never through it.
    expect(await closing()).toBe(balanceAt(n - 1));
    for (const i of [0, Math.floor(n / 2), n - 1])
      expect(await rowAt(i)).toEqual({ Amount: amounts[i], Balance: balanceAt(i) });
    expect(JSON.parse(await runPython(CACHED, [file]))).toEqual(
      [0, Math.floor(n / 2), n - 1].map((i) => [amounts[i], balanceAt(i)]),
    );
  };

  it('is computed when the file is read', async () => {
    const n = amounts.length;
    expect(await rowAt(n - 1)).toEqual({ Amount: amounts[n - 1], Balance: balanceAt(n - 1) });
    expect(await closing()).toBe(balanceAt(n - 1));
  });

  it('follows a change at its top to the last row, through the API and in the saved file', async () => {
    const res = await h.fetch(rowsPath(book, 'Ledger', '/1'), {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Amount: 1000 }),
    });
    expect(res.status).toBe(200);
    amounts[0] = 1000;
    await expectBalances();
  }, 60_000);

  it('follows a delete near its top: as in Excel, every balance below the row that left reads #REF!', async () => {
    // API row 3 is sheet row 4: row 5's `=B4+A5` loses the row it reads, and the chain below it breaks.
    const res = await h.fetch(rowsPath(book, 'Ledger', '/3'), { method: 'DELETE' });
    expect(res.status).toBe(200);
    amounts = amounts.filter((_, i) => i !== 2);
    const n = amounts.length;
    expect(await rowAt(1)).toEqual({ Amount: amounts[1], Balance: balanceAt(1) });
    expect(await closing()).toBe('#REF!');
    for (const i of [2, Math.floor(n / 2), n - 1])
      expect(await rowAt(i)).toEqual({ Amount: amounts[i], Balance: '#REF!' });
    expect(JSON.parse(await runPython(CACHED, [file]))).toEqual([
      [amounts[0], balanceAt(0)],
      [amounts[Math.floor(n / 2)], '#REF!'],
      [amounts[n - 1], '#REF!'],
    ]);
  }, 60_000);
});
