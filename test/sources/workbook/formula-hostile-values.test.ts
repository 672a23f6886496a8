/**
 * Values written through the API that formulas of the file then read as a pattern or a count cannot hold the
 * service: a criterion of stars (`COUNTIF(A:A,B2)`, the libraries' backtracking RegExp took 37 s over twenty
 * 100-character cells, and never ended over these), a REPT count and a WORKDAY count of 10^12 (the libraries
 * looped that many times). Over HTTP on a file openpyxl writes: each PATCH is answered, its formulas computed
 * again as Excel computes them, a read beside it answered, and the saved file read back by openpyxl.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const ROWS = 200;

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Tasks'
ws.append(['Text', 'Pattern', 'Days', 'Matches', 'Bar', 'Due'])
for r in range(2, ${ROWS} + 2):
    ws.append(['a' * 2000, 'b*', 3, f'=COUNTIF(A:A,B{r})', f'=REPT("|",C{r})', f'=WORKDAY(45352,C{r})'])
wb.save(sys.argv[1])
`;

const CACHED = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], data_only=True)
print(json.dumps([c.value for c in wb['Tasks'][2]][3:]))
`;

let h: Harness;
let book: ConnectionRecord;
let file: string;

beforeAll(async () => {
  h = await startHarness();
  file = path.join(h.dir, 'tasks.xlsx');
  await runPython(MAKE, [file]);
  book = await h.connect(file);
}, 60_000);
afterAll(async () => {
  await h.close();
});

it('answers writes of a pattern of stars and of huge counts, and reads beside them', async () => {
  const first = await (await h.fetch(`${rowsPath(book, 'Tasks')}?limit=1`)).json();
  expect(first[0]).toMatchObject({ Matches: 0, Bar: '|||', Due: 45357 });

  const write = h.fetch(rowsPath(book, 'Tasks', '/1'), {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Pattern: '*a*a*a*a*a*a*a*a*a*c', Days: 1e12 }),
  });
  const beside = await h.fetch(`${rowsPath(book, 'Tasks')}?limit=1&offset=5`);
  expect(beside.status).toBe(200);
  const res = await write;
  expect(res.status).toBe(200);

  const after = await (await h.fetch(`${rowsPath(book, 'Tasks')}?limit=1`)).json();
  expect(after[0]).toMatchObject({ Matches: 0, Bar: '#VALUE!', Due: '#NUM!' });
  expect(JSON.parse(await runPython(CACHED, [file]))).toEqual([0, '#VALUE!', '#NUM!']);
}, 60_000);
