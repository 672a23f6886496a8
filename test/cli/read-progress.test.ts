/**
 * Reading a large file, as a person waits on it: `sheetport connect` shows a progress bar on a terminal, and
 * nothing extra on a pipe or with `--json` (the terminal is a real pseudo-terminal: util-linux's `script` runs the
 * CLI on one); `sheetport serve` prints lines as it reads the file at start, none with `--json`, and none when it
 * starts from the read `connect` kept.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli, SHEETPORT_BIN, startCli } from '../helpers/cli.ts';
import { writeTallCsv, writeTallXlsx } from '../helpers/tall-sheet.ts';

const run = promisify(execFile);
let dir: string;
let file: string;
let csv: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-connect-progress-'));
  file = path.join(dir, 'tall.xlsx');
  // About 10 MB of sheet XML: ten of the reader's chunks, so the read reports more than once.
  await writeTallXlsx(file, 4, 250_000);
  csv = path.join(dir, 'tall.csv');
  await writeTallCsv(csv, 4, 250_000);
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** `sheetport ...args` on a pseudo-terminal: what the terminal was sent (standard output and error together). */
async function onTerminal(args: string[]): Promise<string> {
  const line = [process.execPath, SHEETPORT_BIN, ...args].map(quoted).join(' ');
  const { stdout } = await run('script', ['-q', '-e', '-c', line, '/dev/null'], {
    env: cliEnv(),
    timeout: 60_000,
  });
  return stdout;
}

describe('sheetport connect on a large file', () => {
  it('draws a progress bar on a terminal, up to 100%, then takes it away before its report', async () => {
    const out = await onTerminal(['connect', file, '--data-dir', path.join(dir, 'tty')]);
    const percents = [...out.matchAll(/Reading the file \[[=-]+\] (\d+)%/g)].map((m) => Number(m[1]));
    expect(percents.length).toBeGreaterThan(1);
    expect(percents.at(-1)).toBe(100);
    expect([...percents].sort((a, b) => a - b)).toEqual(percents);
    // The bar is cleared (erase line) before the report is printed.
    const report = out.indexOf('Connected tall.xlsx');
    expect(report).toBeGreaterThan(out.lastIndexOf('100%'));
    expect(out.slice(out.lastIndexOf('100%'), report)).toContain('\x1b[2K');
    expect(out).toContain('250000 rows');
  }, 90_000);

  it('draws it for a .csv too (its records counted as they are scanned)', async () => {
    const out = await onTerminal(['connect', csv, '--data-dir', path.join(dir, 'tty-csv')]);
    const percents = [...out.matchAll(/Reading the file \[[=-]+\] (\d+)%/g)].map((m) => Number(m[1]));
    expect(percents.length).toBeGreaterThan(1);
    expect(percents.at(-1)).toBe(100);
    expect(out).toContain('Connected tall.csv');
  }, 90_000);

  it('adds nothing with --json on a terminal, nor on a pipe', async () => {
    const json = await onTerminal(['connect', file, '--json', '--data-dir', path.join(dir, 'json')]);
    expect(json).not.toContain('Reading the file');
    expect(JSON.parse(json.slice(json.indexOf('{')))).toMatchObject({ created: true });
    const piped = await runCli(['connect', file], { dataDir: path.join(dir, 'pipe'), timeoutMs: 60_000 });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    expect(piped.stdout).not.toContain('Reading the file');
    expect(piped.stdout).toContain('Connected tall.xlsx');
  }, 90_000);
});

describe('sheetport serve reading a large file at start', () => {
  it('prints which file, each quarter of the way and how long it took; nothing of it with --json', async () => {
    const dataDir = path.join(dir, 'serve');
    expect((await runCli(['connect', file], { dataDir, timeoutMs: 60_000 })).code).toBe(0);
    // `connect` kept its read for `serve`, which would start from it without reading the file at all (first
    // below); without a kept read (the file changed meanwhile, say) `serve` reads the file and says so.
    const fromKept = await startCli(['serve', '--port', '0'], { dataDir });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await fromKept.stop();
    expect(fromKept.stdout()).not.toContain('tall.xlsx');
    await rm(path.join(dataDir, 'reads'), { recursive: true });
    const serve = await startCli(['serve', '--port', '0'], {
      dataDir,
      until: /Read tall\.xlsx in [\d.]+ s\n/,
    });
    await serve.stop();
    const lines = serve.stdout().split('\n');
    const reading = lines.filter((line) => line.includes('tall.xlsx'));
    expect(reading).toEqual([
      'Reading tall.xlsx ...',
      'Reading tall.xlsx: 25%',
      'Reading tall.xlsx: 50%',
      'Reading tall.xlsx: 75%',
      expect.stringMatching(/^Read tall\.xlsx in \d+\.\d s$/),
    ]);
    expect(lines[0]).toMatch(/^SheetPort listening on http:/);

    // (Stopped as soon as it said so, it may not have kept its read yet.)
    await rm(path.join(dataDir, 'reads'), { recursive: true, force: true });
    const json = await startCli(['serve', '--port', '0', '--json'], { dataDir });
    // Long enough for the read at start to be done: its lines would have come by then.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await json.stop();
    expect(json.stdout()).not.toContain('tall.xlsx');
    expect(JSON.parse(json.line)).toMatchObject({ url: expect.stringMatching(/^http:/) });
  }, 90_000);
});
