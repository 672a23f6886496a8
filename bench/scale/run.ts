/**
 * `npm run bench:scale`: SheetPort beside json-server 0.17.4 on Excel-sized tabs. For each size (100,000,
 * 300,000 and 1,048,575 data rows unless `--sizes` says otherwise) it generates the tab as .xlsx and .csv and as
 * json-server's db.json once (cached under the OS temp dir), then runs, one at a time, SheetPort on each kind
 * (`sheetport serve`, default settings, a fresh data dir) and json-server, and prints one markdown table per
 * size. What each row measures: docs/performance.md, "At scale".
 *
 * With `--formulas` the .xlsx also has a Total column holding a formula in every row, written without cached
 * results as openpyxl writes them (json-server's rows and the .csv stay as they are).
 *
 *   node bench/scale/run.ts [--sizes 100000,300000] [--kinds xlsx,csv] [--writes 15] [--formulas]
 */
import os from 'node:os';
import { cliMode } from '../built-cli.ts';
import { scaleFiles } from './cache.ts';
import { jsonServerColumn, sheetportColumn } from './columns.ts';
import type { Column } from './measure.ts';
import { parseScaleOptions } from './options.ts';
import { markdownTable } from './table.ts';

const options = parseScaleOptions(process.argv.slice(2));
console.log(
  `Node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GB memory; ${options.writes} writes of each kind${options.formulas ? '; the .xlsx with a formula in every row (Total)' : ''}`,
);
console.log(cliMode());
for (const rows of options.sizes) {
  const title = `${rows.toLocaleString('en-US')} rows`;
  console.error(`\n${title}: input files`);
  const files = await scaleFiles(rows, options.kinds, options.formulas);
  // The machine may be shared: its load while this size ran says how far the numbers can be trusted.
  const loadBefore = os.loadavg()[0]!;
  const columns: { name: string; column: Column }[] = [];
  for (const kind of options.kinds) columns.push(await sheetportColumn(kind, rows, files, options.writes));
  console.error('  json-server');
  columns.push(await jsonServerColumn(rows, files, options.writes));
  console.log(`\n${markdownTable(title, columns)}`);
  console.log(
    `\nLoad average (1 min) of the machine: ${loadBefore.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end.`,
  );
}
