/**
 * What a write's formulas cost is the file's to say: a count of the values of a column at or above each row's,
 * in every row (`=COUNTIFS(A:A,">="&A2)`: an equality is answered from an index, lookup-index.ts, and a call
 * repeated with the same criterion once), reads the whole column once per row. The recalculation after a write gives reads a turn between formulas, so it holds
 * none up for long, and past the file's time limit it gives up and the write is refused (recalc-time.ts). The
 * workbook is openpyxl's (no cached results).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../../server/errors.ts';
import { planWrite } from '../../../../server/sources/plan.ts';
import { OoxmlDocument } from '../../../../server/sources/workbook/ooxml/ooxml-document.ts';
import { runPython } from '../../../helpers/openpyxl.ts';
import { turnsDuring } from '../../../helpers/turns-during.ts';
import { PLAIN } from '../helpers.ts';

const ROWS = 4_000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-paced-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook(write_only=True)
ws = wb.create_sheet('Counts')
ws.append(['Amount', 'Alike'])
for r in range(2, ${ROWS} + 2):
    ws.append([r, f'=COUNTIFS(A:A,">="&A{r})'])
wb.save(sys.argv[1])
`;

async function workbook(): Promise<Buffer> {
  const file = path.join(dir, 'counts.xlsx');
  if (!fs.existsSync(file)) await runPython(MAKE, [file]);
  return fs.readFileSync(file);
}

const LIMITS = { maxCells: 10_000_000, maxTextChars: 100_000_000 };

describe('the recalculation after a write', () => {
  it('answers reads between formulas, and computes every count again', async () => {
    const doc = await OoxmlDocument.parse(await workbook(), LIMITS);
    const id = doc.tabs()[0]!.sourceSheetId;
    expect(doc.tab(id)!.typed[0]).toEqual([2, ROWS]);
    await doc.prepare(id);
    // Turns of the event loop taken while the write computes: a read waiting would be answered in each.
    const write = doc.apply(
      id,
      planWrite(doc.tab(id)!, [{ op: 'update', row: 1, values: { Amount: ROWS + 2 } }]),
      PLAIN,
    );
    expect(await turnsDuring(Promise.resolve(write))).toBeGreaterThan(5);
    const typed = doc.tab(id)!.typed;
    expect(typed[0]).toEqual([ROWS + 2, 1]);
    expect(typed[ROWS - 1]).toEqual([ROWS + 1, 2]);
  }, 60_000);

  it("is given up past the file's time limit, the write refused", async () => {
    const doc = await OoxmlDocument.parse(await workbook(), { ...LIMITS, computeTimeoutMs: 50 });
    const id = doc.tabs()[0]!.sourceSheetId;
    await doc.prepare(id);
    const write = doc.apply(
      id,
      planWrite(doc.tab(id)!, [{ op: 'update', row: 1, values: { Amount: 5 } }]),
      PLAIN,
    );
    const error = await write.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('upstream_error');
    expect((error as AppError).details).toEqual({ reason: 'too_large' });
    expect((error as AppError).message).toMatch(/SHEETPORT_PARSE_TIMEOUT_MS/);
  }, 60_000);
});
