// `npm run fake:google -- --port 0 --seed book.xlsx`: starts by hand, prints one JSON line with
// its URL and the spreadsheet made from the workbook (tabs, values and cell types kept).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';

let child: ChildProcess | undefined;
let dir: string | undefined;

afterAll(async () => {
  if (child?.pid) process.kill(child.pid, 'SIGTERM');
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('fake:google CLI', () => {
  it('seeds a spreadsheet from an .xlsx and serves it', { timeout: 30_000 }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'fake-google-'));
    const book = await writePeopleWorkbook(dir);
    // Run the script's command directly (npm would leave a grandchild behind to clean up).
    child = spawn(process.execPath, ['test/fakes/google-sheets/cli.ts', '--port', '0', '--seed', book], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const firstLine = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child?.stdout as NodeJS.ReadableStream }).once('line', resolve);
      child?.once('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    const started = JSON.parse(firstLine) as {
      url: string;
      spreadsheets: { id: string; tabs: string[]; title: string }[];
    };
    expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(started.spreadsheets).toHaveLength(1);
    const [seeded] = started.spreadsheets;
    expect(seeded?.tabs).toEqual(['People', 'Café ☕ Tab']);

    const get = async (range: string, render: string) => {
      const res = await fetch(
        `${started.url}/v4/spreadsheets/${seeded?.id}/values/${encodeURIComponent(range)}?valueRenderOption=${render}`,
        { headers: { authorization: 'Bearer by-hand' } },
      );
      return ((await res.json()) as { values: unknown[][] }).values;
    };
    expect(await get('People!A1:H2', 'UNFORMATTED_VALUE')).toEqual([
      ['Name', 'Age', 'Joined', 'Active', 'Balance', 'Code', '', 'Name'],
      ['Ann', 31, 45352, true, 1000, '007', 'x', 'first'],
    ]);
    expect(await get('People!A2:F2', 'FORMATTED_VALUE')).toEqual([
      ['Ann', '31', '3/1/2024', 'TRUE', '$1,000.00', '007'],
    ]);
    expect(await get("'Café ☕ Tab'", 'UNFORMATTED_VALUE')).toEqual([
      ['Key', 'Value'],
      ['a', 1],
    ]);
  });
});
