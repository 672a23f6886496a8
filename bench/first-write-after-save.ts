/**
 * How long the first write after another program saved the workbook takes (not part of `vitest run`; run by
 * hand with `node bench/first-write-after-save.ts [rows]`, 100,000 rows by default).
 *
 * Each round is what happens when someone saves the file in Excel and an append follows: the file is
 * replaced by a new save (same content, a new inode, so a new version), read as the service reads it (the
 * parse worker, not timed: the watcher does that when it sees the save), then one row is appended through
 * the write queue, timed until the new file is in place. Prints each round and the median.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_FILE_LIMITS } from '../server/config.ts';
import { engineNamed } from '../server/sources/workbook/engines.ts';
import { WorkbookFile } from '../server/sources/workbook/workbook-file.ts';
import { generateRows, HEADER, writeOrdersWorkbook } from './data.ts';

const ROWS = Number(process.argv[2] ?? 100_000);
const ROUNDS = 7;

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sheetport-first-write-'));
const file = path.join(dir, 'orders.xlsx');
await writeOrdersWorkbook(file, generateRows(ROWS));
const workbook = new WorkbookFile(file, engineNamed('xlsx'), { ...DEFAULT_FILE_LIMITS });
const first = await workbook.read();
const sheetId = first.tabs[0]!.sourceSheetId;
const options = { allowFormulas: false, userEntered: false };
const times: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  // Another program's save: new bytes at the path by a rename, as Excel does it.
  const bytes = await fs.readFile(file);
  await fs.writeFile(`${file}.saving`, bytes);
  await fs.rename(`${file}.saving`, file);
  await workbook.read();
  const started = performance.now();
  const [written] = await workbook.write([
    {
      sourceSheetId: sheetId,
      mutations: [{ op: 'append', values: { [HEADER[0]!]: `round ${round}` } }],
      options,
    },
  ]);
  if (written?.status !== 'fulfilled') throw written?.reason;
  const ms = performance.now() - started;
  times.push(ms);
  console.log(`round ${round}: first write after an outside save ${ms.toFixed(1)} ms`);
}
times.sort((a, b) => a - b);
console.log(
  `${ROWS} rows: median ${times[Math.floor(times.length / 2)]!.toFixed(1)} ms over ${ROUNDS} rounds`,
);
await workbook.close();
await fs.rm(dir, { recursive: true, force: true });
process.exit(0);
