/**
 * A .csv file takes appends in place (its line added at the end, fsync'd), and stays a valid CSV file whatever
 * instant the service dies at: a real `sheetport serve` takes a stream of appends over HTTP and is SIGKILLed in the
 * middle of it. Then an independent reader (Python's csv module, and LibreOffice) reads every line whole, with
 * every append the service acknowledged, and no line cut short. The file's inode is the one it started with: the
 * appends went in place (a replace would give the file a new inode).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServiceContext } from '../../../server/context.ts';
import { openSecretsProvider } from '../../../server/secrets/choose.ts';
import { type RunningServe, startServe } from '../../helpers/cli.ts';
import { connectFile } from '../../helpers/fixtures.ts';

const run = promisify(execFile);

/** Every record of the file through Python's csv module, and whether the file ends with a line ending. */
const READ_CSV = `
import csv, json, sys
raw = open(sys.argv[1], 'rb').read()
with open(sys.argv[1], newline='', encoding='utf-8') as f:
    rows = list(csv.reader(f, strict=True))
print(json.dumps({'rows': rows, 'endsWithNewline': raw.endswith(b'\\r\\n')}))
`;

async function pythonRows(file: string): Promise<{ rows: string[][]; endsWithNewline: boolean }> {
  const { stdout } = await run('/usr/bin/python3', ['-c', READ_CSV, file], { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout);
}

const labelOf = (n: number) => `row ${n}, "quoted"`;

let dir: string;
let server: RunningServe | null = null;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-csv-kill-'));
});

afterEach(async () => {
  await server?.stop('SIGKILL');
  server = null;
  await rm(dir, { recursive: true, force: true });
});

describe('appending to a .csv while the service is killed', () => {
  it('leaves a file every reader parses whole, with every acknowledged append', async () => {
    const file = path.join(dir, 'log.csv');
    const start = Array.from({ length: 2000 }, (_, i) => `${-i - 1},seed ${i},x`).join('\r\n');
    await writeFile(file, `n,label,note\r\n${start}\r\n`);
    const inode = (await stat(file)).ino;

    const dataDir = path.join(dir, 'data');
    openSecretsProvider(dataDir, { env: { SHEETPORT_SECRETS: 'file' } });
    const setup = createServiceContext({ dataDir, log: () => {} });
    const connection = await connectFile(setup.connections, file);
    const { key } = await setup.keys.create({
      name: 'k',
      scope: 'read_write',
      plan: 'enterprise',
      perSecond: 10_000,
      daily: 1e9,
    });
    await setup.close();
    server = await startServe(dataDir, { quiet: true });

    const rows = `${server.url}/api/spreadsheets/${connection.userKey}/log`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const acknowledged: number[] = [];
    let next = 0;
    let killed = false;
    const stream = async () => {
      while (!killed) {
        const n = next++;
        try {
          const res = await fetch(rows, {
            method: 'POST',
            headers,
            body: JSON.stringify({ n, label: labelOf(n), note: n % 3 === 0 ? 'multi\nline' : 'x' }),
          });
          if (res.status === 201) acknowledged.push(n);
          else expect.fail(`append ${n} answered ${res.status}: ${await res.text()}`);
        } catch {
          return; // the service is gone
        }
      }
    };
    const streams = Array.from({ length: 4 }, stream);
    // Killed while appends are in flight: some acknowledged, some on their way in, some not answered yet.
    while (acknowledged.length < 150) await new Promise((resolve) => setTimeout(resolve, 10));
    await server.stop('SIGKILL');
    killed = true;
    server = null;
    await Promise.all(streams);

    const { rows: records, endsWithNewline } = await pythonRows(file);
    expect(endsWithNewline).toBe(true);
    expect(records[0]).toEqual(['n', 'label', 'note']);
    for (const record of records) expect(record).toHaveLength(3);
    const appended = records.slice(2001);
    const numbers = appended.map((r) => Number(r[0]));
    for (const [i, record] of appended.entries()) {
      expect(record[1]).toBe(labelOf(numbers[i]!));
      expect(record[2]).toBe(numbers[i]! % 3 === 0 ? 'multi\nline' : 'x');
    }
    expect(new Set(numbers).size).toBe(numbers.length);
    for (const n of acknowledged) expect(numbers).toContain(n);
    expect((await stat(file)).ino).toBe(inode);

    // LibreOffice reads the same records.
    const out = path.join(dir, 'soffice');
    await run(
      'soffice',
      [
        `-env:UserInstallation=file://${out}/profile`,
        '--headless',
        '--convert-to',
        'csv:Text - txt - csv (StarCalc):44,34,76,1',
        '--outdir',
        out,
        file,
      ],
      { timeout: 120_000 },
    );
    const converted = await pythonRows(path.join(out, 'log.csv'));
    expect(converted.rows.map((r) => r[0])).toEqual(records.map((r) => r[0]));
    expect(converted.rows.map((r) => r[1])).toEqual(records.map((r) => r[1]));
    expect((await readFile(file, 'utf8')).includes('\r\n\r\n')).toBe(false);
  }, 180_000);
});
