/**
 * What the search caches of a 1,048,575-row tab cost, measured in the query engine alone (no HTTP, no workbook):
 * the heap and array-buffer memory the engine keeps after the first search of each kind (with full collections
 * before each reading), the time that first search takes (it builds the column's search structures), and the
 * time of the searches after it (each a new value, so no filter result is reused).
 *
 *   node bench/search-index-memory.ts [checkout ...]
 *
 * Each checkout's server/rows/engine.ts runs in a child process of its own (default: this checkout), on the
 * scale benchmark's rows (bench/scale/scale-data.ts) held as a snapshot holds them.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { SCALE_COLUMNS, scaleRows } from './scale/scale-data.ts';

const ROWS = Number(process.env.BENCH_ROWS || 1_048_575);
const CASES: [string, string, string, (i: number) => string][] = [
  ['search (text)', 'search', 'Email', (i) => `ada.lovelace${i}`],
  ['search (number)', 'search', 'Order ID', (i) => String(523_400 + i)],
  ['search_exact (text)', 'search_exact', 'Email', (i) => `grace.hopper${i}@example.com`],
  ['search_exact (number)', 'search_exact', 'Order ID', (i) => String(623_400 + i)],
];

function memoryMb(): { heap: number; buffers: number } {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed / 2 ** 20, buffers: m.arrayBuffers / 2 ** 20 };
}

async function child(tree: string): Promise<void> {
  const { runQuery } = await import(path.join(tree, 'server/rows/engine.ts'));
  const { parseListQuery } = await import(path.join(tree, 'server/rows/query-params.ts'));
  const typed = [...scaleRows(ROWS)];
  const tab = {
    header: SCALE_COLUMNS.map((c) => c.name),
    typed,
    formatted: typed.map((r) => r.map((v) => (v === null ? '' : String(v)))),
  };
  const query = (parameter: string, field: string, value: string) =>
    parseListQuery({ [parameter]: `${field}:${value}`, limit: '100' }, { defaultLimit: 100, maxLimit: 1000 });
  const start = memoryMb();
  let last = start;
  for (const [name, parameter, field, value] of CASES) {
    let t = performance.now();
    runQuery(tab, query(parameter, field, value(0)));
    const firstMs = performance.now() - t;
    t = performance.now();
    for (let i = 1; i <= 50; i++) runQuery(tab, query(parameter, field, value(i)));
    const nextMs = (performance.now() - t) / 50;
    const now = memoryMb();
    const grew = now.heap - last.heap + now.buffers - last.buffers;
    last = now;
    console.log(
      `| ${path.basename(tree)} | ${name} | ${firstMs.toFixed(0)} ms | ${nextMs.toFixed(2)} ms | +${grew.toFixed(0)} MB |`,
    );
  }
  const total = last.heap - start.heap + last.buffers - start.buffers;
  console.log(`| ${path.basename(tree)} | all four kept | | | ${total.toFixed(0)} MB |`);
}

const at = process.argv.indexOf('--child');
if (at >= 0) await child(path.resolve(process.argv[at + 1]!));
else {
  const trees = process.argv.length > 2 ? process.argv.slice(2) : [path.resolve(import.meta.dirname, '..')];
  console.log(`${ROWS.toLocaleString('en-US')} rows, the query engine alone\n`);
  console.log(
    '| tree | case | first search | each next search | memory kept |\n| --- | --- | ---: | ---: | ---: |',
  );
  for (const tree of trees) {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', import.meta.filename, '--child', path.resolve(tree)],
      { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    process.stdout.write(out);
  }
}
