/**
 * A write computes again only the formulas it can have changed (recalculation.ts): the ones reading a cell it
 * wrote, and on from those. Whatever it leaves alone must still be right, so after every write of a random
 * sequence (updates of values on either tab, appends, deletes) each formula's result is checked against a full
 * computation of the workbook as it then is, every formula computed from the values alone. The workbooks are
 * openpyxl's, with formulas of many shapes (own row, running ranges, whole columns, the other tab, chains down
 * a column), each column's reading only columns before it, so the workbook holds no cycle.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planWrite } from '../../../../server/sources/plan.ts';
import type { Mutation } from '../../../../server/sources/source.ts';
import type { CellTab } from '../../../../server/sources/workbook/cell-tab.ts';
import { WorkbookEvaluator } from '../../../../server/sources/workbook/formulas/evaluator.ts';
import { snapshotCells } from '../../../../server/sources/workbook/formulas/snapshot-cells.ts';
import { OoxmlDocument } from '../../../../server/sources/workbook/ooxml/ooxml-document.ts';
import { runPython } from '../../../helpers/openpyxl.ts';
import { PLAIN } from '../helpers.ts';

const CASES = 40;
const ROWS = 8;

/** Per column of T (C, D, E) and U (B): what a row's formula may be; `{r}` its row, `{p}` the row above. */
const SHAPES: Record<string, string[]> = {
  C: ['A{r}*2', 'SUM(A$2:A{r})', 'COUNTIF(B:B,B{r})', 'VLOOKUP(A{r},U!A:C,3,FALSE)', 'B{r}', 'C{p}+A{r}'],
  D: ['C{r}+B{r}', 'SUM(C:C)', 'MATCH(C{r},C:C,0)', 'D{p}+C{r}', 'A{r}', 'RANK(A{r},A:A)'],
  E: ['D{r}*2', 'MAX(U!B:B)', 'SUMIF(A:A,A{r},D:D)', 'C{r}&"-"&D{r}', 'IF(A{r}>5,"big","small")', 'E{p}+1'],
  UB: ['SUM(T!C:C)', 'T!C{r}', 'COUNTIF(T!A:A,A{r})', 'MAX(T!A:A)+C{r}', 'C{r}*3'],
};

const formulaOf = (shape: string, r: number) =>
  `=${shape.replaceAll('{r}', String(r)).replaceAll('{p}', String(r - 1))}`.replace(/^=(\w)\d+\+/, (m) =>
    r === 2 && shape.includes('{p}') ? '=' : m,
  );

const small = fc.integer({ min: 0, max: 9 });
const workbookArb = fc.record({
  t: fc.array(fc.tuple(small, small, fc.nat(), fc.nat(), fc.nat()), { minLength: ROWS, maxLength: ROWS }),
  u: fc.array(fc.tuple(small, fc.nat(), small), { minLength: ROWS, maxLength: ROWS }),
});
const writeArb = fc.oneof(
  fc.record({
    tab: fc.constant('T'),
    op: fc.constant('update'),
    row: fc.nat(),
    a: small,
    b: fc.option(small),
  }),
  fc.record({
    tab: fc.constant('U'),
    op: fc.constant('update'),
    row: fc.nat(),
    a: small,
    b: fc.option(small),
  }),
  fc.record({
    tab: fc.constant('T'),
    op: fc.constant('append'),
    row: fc.nat(),
    a: small,
    b: fc.option(small),
  }),
  fc.record({
    tab: fc.constantFrom('T', 'U'),
    op: fc.constant('delete'),
    row: fc.nat(),
    a: small,
    b: fc.option(small),
  }),
);
type Write = typeof writeArb extends fc.Arbitrary<infer W> ? W : never;

const cases = fc.sample(fc.tuple(workbookArb, fc.array(writeArb, { minLength: 1, maxLength: 4 })), {
  numRuns: CASES,
  seed: 20261207,
});

/** Each case's workbook as JSON rows, `=...` for a formula. */
const books = cases.map(([book]) => ({
  T: [
    ['a', 'b', 'c', 'd', 'e'],
    ...book.t.map(([a, b, c, d, e], i) => {
      const r = i + 2;
      const pick = (col: string, n: number) => formulaOf(SHAPES[col]![n % SHAPES[col]!.length]!, r);
      return [a, b, pick('C', c), pick('D', d), pick('E', e)];
    }),
  ],
  U: [
    ['k', 'v', 'w'],
    ...book.u.map(([k, v, w], i) => [k, formulaOf(SHAPES.UB![v % SHAPES.UB!.length]!, i + 2), w]),
  ],
}));

const MAKE = `
import json, sys, openpyxl
for i, book in enumerate(json.load(open(sys.argv[1]))):
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name in ('T', 'U'):
        ws = wb.create_sheet(name)
        for row in book[name]:
            ws.append(row)
    wb.save(f'{sys.argv[2]}/book{i}.xlsx')
`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-reach-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  const spec = path.join(dir, 'books.json');
  fs.writeFileSync(spec, JSON.stringify(books));
  await runPython(MAKE, [spec, dir]);
}, 60_000);

const LIMITS = { maxCells: 1_000_000, maxTextChars: 10_000_000 };

/** Every formula's result as the document holds it, and as a full computation of its tabs gives it. */
function heldAndComputed(doc: OoxmlDocument): { held: unknown[]; computed: unknown[] } {
  const tabs = doc.tabs().map((t) => doc.tab(t.sourceSheetId) as CellTab);
  const formulaAt = (tab: CellTab, row: number, column: number) =>
    tab.formulas.get((row - tab.headerRow - 1) * tab.header.length + column - 1);
  const evaluator = new WorkbookEvaluator(
    tabs.map((tab) => snapshotCells(tab, false, (row, column) => formulaAt(tab, row, column))),
    [],
    [],
  );
  const held: unknown[] = [];
  const computed: unknown[] = [];
  for (const tab of tabs) {
    for (const at of tab.formulas.keys()) {
      const r = Math.floor(at / tab.header.length);
      const c = at % tab.header.length;
      const row = tab.headerRow + 1 + r;
      const place = `${tab.name}!${String.fromCharCode(65 + c)}${row} ${tab.formulas.get(at)}`;
      held.push([place, tab.typed[r]?.[c] ?? null]);
      computed.push([place, evaluator.result(tab.name, row, c + 1)?.value ?? null]);
    }
  }
  return { held, computed };
}

function mutationOf(doc: OoxmlDocument, write: Write): [string, Mutation] | undefined {
  const tab = doc.tabs().find((t) => t.name === write.tab)!;
  const rows = doc.tab(tab.sourceSheetId)!.typed.length;
  const row = rows === 0 ? 0 : (write.row % rows) + 1;
  const values =
    write.tab === 'T'
      ? { a: write.a, ...(write.b === null ? {} : { b: write.b }) }
      : { k: write.a, ...(write.b === null ? {} : { w: write.b }) };
  if (write.op === 'append') return [tab.sourceSheetId, { op: 'append', values }];
  if (row === 0) return undefined;
  if (write.op === 'delete') return [tab.sourceSheetId, { op: 'delete', row }];
  return [tab.sourceSheetId, { op: 'update', row, values }];
}

describe('the formulas a write computes again', () => {
  it.each(cases.map((c, i) => [i, c[1]] as const))(
    'leave every result right (case %i)',
    async (i, writes) => {
      const doc = await OoxmlDocument.parse(fs.readFileSync(path.join(dir, `book${i}.xlsx`)), LIMITS);
      const first = heldAndComputed(doc);
      expect(first.held).toEqual(first.computed);
      for (const write of writes) {
        const mutation = mutationOf(doc, write);
        if (!mutation) continue;
        const [id, m] = mutation;
        await doc.prepare(id);
        await doc.apply(id, planWrite(doc.tab(id)!, [m]), PLAIN);
        const after = heldAndComputed(doc);
        expect(after.held, JSON.stringify(write)).toEqual(after.computed);
      }
    },
  );
});
