/**
 * `node bench/full-sheet-refusal.ts`: how long an append takes to be refused (409) on a full .xlsx tab of
 * 1,048,575 data rows, served by `sheetport serve` with the default settings: the first append after start,
 * then two more. The workbook is bench:scale's (generated once, cached under the OS temp dir).
 */
import { rm } from 'node:fs/promises';
import { scaleFiles } from './scale/cache.ts';
import { connectSheetPort, servedCopy, serveSheetPort } from './scale/sheetport-run.ts';
import { showMs } from './scale/timing.ts';

const rows = 1_048_575;
const files = await scaleFiles(rows, ['xlsx']);
const setup = await servedCopy('sheetport-full-sheet-', files.workbook.xlsx, rows);
const server = await serveSheetPort(setup, await connectSheetPort(setup));
try {
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    const res = await fetch(server.tab, {
      method: 'POST',
      headers: { ...server.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ 'Order ID': 1, Customer: 'Full Sheet' }),
    });
    await res.text();
    console.log(
      `append ${i + 1} on a full sheet: HTTP ${res.status} in ${showMs(performance.now() - started)}`,
    );
  }
} finally {
  await server.stop();
  await rm(setup.runDir, { recursive: true, force: true });
}
