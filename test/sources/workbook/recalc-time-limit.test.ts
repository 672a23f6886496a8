/**
 * A write whose formulas take longer than the file's time limit (SHEETPORT_PARSE_TIMEOUT_MS) to compute again is
 * refused, over HTTP: 502 `upstream_error`, `reason: "too_large"`, the file's bytes as they were, the rows as they
 * were, and the service answering. The workbook is openpyxl's: a count of the values of a column at or above each
 * row's in every row (`=COUNTIFS(A:A,">="&A2)`, which no index answers, each row's criterion its own so no call
 * is answered twice), which reads the column once per row. A first service, with
 * the default limit, stores the results in the file at a first write, so the service under the short limit reads
 * the file without computing anything; an update of one amount then reaches every count.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const ROWS = 8_000;

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook(write_only=True)
ws = wb.create_sheet('Counts')
ws.append(['Amount', 'Alike', 'Note'])
for r in range(2, ${ROWS} + 2):
    ws.append([r, f'=COUNTIFS(A:A,">="&A{r})', None])
wb.save(sys.argv[1])
`;

const sha = async (file: string) =>
  createHash('sha1')
    .update(await fs.readFile(file))
    .digest('hex');
const json = { 'content-type': 'application/json' };

describe("a write whose formulas outlast the file's time limit", () => {
  let h: Harness;
  let book: ConnectionRecord;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sheetport-time-limit-'));
    file = path.join(dir, 'counts.xlsx');
    const first = await startHarness();
    await runPython(MAKE, [file]);
    const stored = await first.connect(file);
    // A note reaches no count: the write only stores the results read, which openpyxl left out.
    const note = await first.fetch(rowsPath(stored, 'Counts', '/1'), {
      method: 'PATCH',
      headers: json,
      body: JSON.stringify({ Note: 'results stored' }),
    });
    expect(note.status).toBe(200);
    await first.close();
    h = await startHarness({ fileLimits: { parseTimeoutMs: 600 } });
    book = await h.connect(file);
  }, 90_000);
  afterAll(async () => {
    await h.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('is refused as too_large, and leaves the file and its rows as they were', async () => {
    const before = await sha(file);
    const rows = async () => (await h.fetch(`${rowsPath(book, 'Counts')}?limit=3`)).json();
    const read = await rows();
    expect(read[0]).toEqual({ Amount: 2, Alike: ROWS, Note: 'results stored' });

    const res = await h.fetch(rowsPath(book, 'Counts', '/1'), {
      method: 'PATCH',
      headers: json,
      body: JSON.stringify({ Amount: 100 }),
    });
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body.error.code).toBe('upstream_error');
    expect(body.error.reason).toBe('too_large');
    expect(body.error.message).toMatch(/SHEETPORT_PARSE_TIMEOUT_MS/);

    expect(await sha(file)).toBe(before);
    expect(await rows()).toEqual(read);
  }, 60_000);
});
