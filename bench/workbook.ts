/**
 * Timings and memory of the .xlsx engine (not part of `vitest run`; run with `node bench/workbook.ts`).
 *
 * Generates 5,000 and 100,000-row x 8-column workbooks (shared strings, currency and date formats, a formula
 * column with cached results), then measures each case in its own child process so resident memory is that
 * case's alone:
 * - `service`: the workbook source as the service uses it (file guard, parse worker, write queue, atomic
 *   replace): first read, appends of one row (p50 over 20), and resident memory with both files loaded;
 * - `surgical` and `exceljs`: the engines alone on the same bytes (parse + tabs, then apply + serialize of one
 *   appended row, p50 over 10), and resident memory with both documents held. `exceljs` is the former engine,
 *   kept in test/sources/exceljs-reference; skip it with BENCH_WORKBOOK_EXCELJS=0 (it takes minutes).
 * Also times the 300-row demo workbook: cold and cached appends, 50 parallel appends, a delete.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import { planWrite } from '../server/sources/plan.ts';
import type { Mutation } from '../server/sources/source.ts';
import { createDemoWorkbook } from '../server/sources/workbook/demo.ts';
import type { WorkbookDocument } from '../server/sources/workbook/document.ts';
import { createWorkbookSource } from '../server/sources/workbook/index.ts';
import { OoxmlDocument } from '../server/sources/workbook/ooxml/ooxml-document.ts';
import { writeOne } from '../test/helpers/source-write.ts';

const plain = { allowFormulas: false, userEntered: false };
const SIZES = [5_000, 100_000] as const;
const run = promisify(execFile);

type Results = Record<string, number>;

async function makeRows(file: string, rows: number): Promise<void> {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: file,
    useStyles: true,
    useSharedStrings: true,
  });
  const ws = wb.addWorksheet('Data');
  ws.addRow(['ID', 'Name', 'Qty', 'Price', 'Date', 'Flag', 'Note', 'Total']).commit();
  for (let i = 1; i <= rows; i++) {
    const row = ws.addRow([
      `ID-${i}`,
      `Name ${i}`,
      i % 100,
      i * 1.25,
      new Date(Date.UTC(2024, 0, 1 + (i % 365))),
      i % 2 === 0,
      i % 5 ? null : 'note',
      { formula: `C${i + 1}*D${i + 1}`, result: (i % 100) * i * 1.25 },
    ]);
    row.getCell(4).numFmt = '"$"#,##0.00';
    row.getCell(5).numFmt = 'yyyy-mm-dd';
    row.commit();
  }
  await wb.commit();
}

function p50(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const result = await fn();
  return [result, performance.now() - t];
}

/** Resident memory, the JS heap in use and memory outside it (buffers), after a full collection. */
function memory(): Results {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const mb = (n: number) => Math.round(n / 2 ** 20);
  return {
    'rss both loaded MB': mb(m.rss),
    'heap used both loaded MB': mb(m.heapUsed),
    'external both loaded MB': mb(m.external),
  };
}

/** The workbook source, as the service reads and writes files. */
async function serviceCase(dir: string): Promise<Results> {
  const out: Results = {};
  const sources = [];
  for (const rows of SIZES) {
    const source = createWorkbookSource(path.join(dir, `rows-${rows}.xlsx`));
    sources.push(source);
    const [snap, first] = await timed(() => source.read());
    if (snap.tabs[0]?.typed.length !== rows) throw new Error('row count mismatch');
    out[`first read ${rows}`] = first;
    out[`read again ${rows}`] = (await timed(() => source.read()))[1];
    const appends: number[] = [];
    for (let i = 0; i < 20; i++) {
      appends.push(
        (await timed(() => writeOne(source, '1', [{ op: 'append', values: { ID: `new-${i}` } }], plain)))[1],
      );
    }
    out[`append p50 ${rows}`] = p50(appends);
  }
  Object.assign(out, memory());
  for (const source of sources) await source.close();
  return out;
}

async function parserFor(engine: string): Promise<(bytes: Uint8Array) => Promise<WorkbookDocument>> {
  if (engine === 'surgical') return (bytes) => OoxmlDocument.parse(bytes);
  const reference = '../test/sources/workbook/exceljs-reference/xlsx-document.ts';
  const { XlsxDocument } = (await import(reference)) as {
    XlsxDocument: { parse(bytes: Uint8Array): Promise<WorkbookDocument> };
  };
  return (bytes) => XlsxDocument.parse(bytes);
}

/** One engine alone: parse + tabs(), then apply + serialize + write of one appended row. */
async function engineCase(dir: string, engine: string): Promise<Results> {
  const parse = await parserFor(engine);
  const out: Results = {};
  const held: WorkbookDocument[] = [];
  for (const rows of SIZES) {
    const file = path.join(dir, `${engine}-${rows}.xlsx`);
    await fs.copyFile(path.join(dir, `rows-${rows}.xlsx`), file);
    const [doc, first] = await timed(async () => {
      const d = await parse(await fs.readFile(file));
      d.tabs();
      return d;
    });
    out[`first read ${rows}`] = first;
    held.push(doc);
    const appends: number[] = [];
    for (let i = 0; i < 10; i++) {
      const mutations: Mutation[] = [{ op: 'append', values: { ID: `new-${i}` } }];
      const [, ms] = await timed(async () => {
        const tab = doc.tab('1');
        if (!tab) throw new Error('no tab');
        doc.apply('1', planWrite(tab, mutations), plain);
        await fs.writeFile(file, await doc.serialize());
        doc.tab('1');
      });
      appends.push(ms);
    }
    out[`append p50 ${rows}`] = p50(appends);
  }
  Object.assign(out, memory());
  if (held.length !== SIZES.length) throw new Error('documents lost');
  return out;
}

async function demoCase(dir: string): Promise<Results> {
  const out: Results = {};
  const demo = path.join(dir, 'demo.xlsx');
  await createDemoWorkbook(demo);
  const source = createWorkbookSource(demo);
  const append = (id: string) => writeOne(source, '1', [{ op: 'append', values: { 'Order ID': id } }], plain);
  out['demo append cold (parse + write)'] = (await timed(() => append('A')))[1];
  out['demo append cached'] = (await timed(() => append('B')))[1];
  out['demo 50 parallel appends'] = (
    await timed(() => Promise.all(Array.from({ length: 50 }, (_, i) => append(`P${i}`))))
  )[1];
  out['demo delete 1 row of 352 (formulas shifted)'] = (
    await timed(() => writeOne(source, '1', [{ op: 'delete', row: 1 }], plain))
  )[1];
  await source.close();
  return out;
}

const [mode, childDir, engine] = process.argv.slice(2);
if (mode === '--child' && childDir && engine) {
  const results =
    engine === 'service'
      ? await serviceCase(childDir)
      : engine === 'demo'
        ? await demoCase(childDir)
        : await engineCase(childDir, engine);
  process.stdout.write(JSON.stringify(results));
} else {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sheetport-bench-'));
  try {
    for (const rows of SIZES) await makeRows(path.join(dir, `rows-${rows}.xlsx`), rows);
    const cases = ['service', 'surgical', 'demo'];
    if (process.env.BENCH_WORKBOOK_EXCELJS !== '0') cases.push('exceljs');
    const self = fileURLToPath(import.meta.url);
    const all: Record<string, Results> = {};
    for (const name of cases) {
      const { stdout } = await run(
        process.execPath,
        ['--expose-gc', '--max-old-space-size=4096', self, '--child', dir, name],
        { maxBuffer: 1 << 20, timeout: 30 * 60_000 },
      );
      all[name] = JSON.parse(stdout) as Results;
      for (const [label, value] of Object.entries(all[name])) {
        const unit = label.endsWith('MB') ? '' : ' ms';
        console.log(`${name.padEnd(8)} ${label.padEnd(44)} ${value.toFixed(0).padStart(7)}${unit}`);
      }
    }
    if (process.env.BENCH_JSON) await fs.writeFile(process.env.BENCH_JSON, JSON.stringify(all, null, 2));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
