/**
 * What the benches that query Excel's largest sheet share: the scale benchmark's workbook of `rows` rows (cached
 * in the OS temp dir), a checkout's `sheetport` CLI with the file limits raised, a read key, and `sheetport serve`
 * started on a data directory. Used by bench/search-scale.ts and bench/first-query.ts.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeFastXlsx } from './scale/fast-xlsx.ts';
import { SCALE_COLUMNS, scaleRows } from './scale/scale-data.ts';

const exec = promisify(execFile);

export const TAB = 'Orders';

/** The default file limits refuse this workbook; raised here so the benchmarks measure reads, not the guard. */
const LIMITS = {
  SHEETPORT_MAX_INFLATED_MB: '4096',
  SHEETPORT_MAX_CELLS: '100000000',
  SHEETPORT_MAX_FILE_MB: '1024',
};

/** The workbook's path, written first if the temp dir does not hold it yet. */
export function scaleWorkbook(rows: number): string {
  const file = path.join(os.tmpdir(), `sheetport-search-scale-${rows}.xlsx`);
  if (existsSync(file)) return file;
  const started = performance.now();
  const partial = `${file}.${process.pid}.tmp`;
  writeFastXlsx(partial, TAB, SCALE_COLUMNS, scaleRows(rows));
  renameSync(partial, file);
  console.log(`wrote ${file} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return file;
}

/** A `sheetport` command of the checkout `tree`, its `--json` answer. */
export async function cli(
  tree: string,
  dataDir: string,
  ...args: string[]
): Promise<Record<string, unknown>> {
  const bin = path.join(tree, 'bin', 'sheetport.js');
  const { stdout } = await exec(process.execPath, [bin, '--data-dir', dataDir, ...args, '--json'], {
    env: { ...process.env, ...LIMITS },
    maxBuffer: 1 << 24,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** A read key whose limits are far above any load a bench makes. */
export async function readKey(tree: string, dataDir: string): Promise<string> {
  const limits = ['--plan', 'enterprise', '--per-second', '1000000', '--daily', '1000000000'];
  return (await cli(tree, dataDir, 'keys', 'create', '--scope', 'read', ...limits)).key as string;
}

/** `sheetport serve` of `tree` on `dataDir`, once it prints its address (BENCH_CPU_PROF: profiled into that dir). */
export async function serve(tree: string, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const profDir = process.env.BENCH_CPU_PROF;
  const node = profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [];
  const bin = path.join(tree, 'bin', 'sheetport.js');
  const child = spawn(
    process.execPath,
    [...node, bin, 'serve', '--data-dir', dataDir, '--port', '0', '--json'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...LIMITS },
    },
  );
  let out = '';
  child.stdout!.setEncoding('utf8');
  for (;;) {
    const url = /"url":"([^"]+)"/.exec(out)?.[1];
    if (url) return { child, url };
    if (child.exitCode !== null) throw new Error(`sheetport serve exited: ${out}`);
    out += (await once(child.stdout!, 'data'))[0];
  }
}
