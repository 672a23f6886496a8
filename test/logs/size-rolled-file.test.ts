/**
 * The file under each log (server/logs/size-rolled-file.ts), on a real folder: rotation by size, the count kept,
 * numbering carried over a restart, and one log's files never counted as another's.
 */
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { logFileNumbers, openSizeRolledFile, type RolledStream } from '../../server/logs/size-rolled-file.ts';

let dir: string;
const errors: unknown[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-rolled-'));
  errors.length = 0;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const open = (stem: string, maxBytes: number, keep: number) =>
  openSizeRolledFile({ dir, stem, maxBytes, keep, mode: 0o600, onError: (e) => errors.push(e) });

/** Writes a line and waits until it is written (one line a write: each waits for the last). */
async function line(stream: RolledStream, text: string): Promise<void> {
  const written = once(stream, 'write');
  stream.write(`${text}\n`);
  await written;
}

const end = (stream: RolledStream) =>
  new Promise<void>((resolve) => {
    stream.once('close', () => resolve());
    stream.end();
  });

async function filesOf(stem: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.startsWith(`${stem}.`)).sort();
}

describe('a log file rotated by size', () => {
  it('starts a new numbered file once the size is reached and keeps only the newest files', async () => {
    const stream = open('requests', 100, 3);
    for (let i = 0; i < 40; i++) await line(stream, `line ${String(i).padStart(2, '0')} ${'x'.repeat(30)}`);
    await end(stream);
    // Removal runs after each rotation, without holding the writes.
    await expect.poll(() => filesOf('requests'), { timeout: 5000 }).toHaveLength(3);
    const numbers = logFileNumbers(dir, 'requests');
    expect(numbers.at(-1)).toBeGreaterThan(10); // 40 lines of 40 bytes, a file every 3 lines
    expect(numbers).toEqual([numbers[0], (numbers[0] as number) + 1, (numbers[0] as number) + 2]);
    let text = '';
    for (const n of numbers) {
      const file = path.join(dir, `requests.${n}.log`);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      // A file ends with the write that crossed the limit: at most one line of 40 bytes past it.
      expect((await stat(file)).size).toBeLessThan(100 + 40);
      text += await readFile(file, 'utf8');
    }
    expect(text).toContain('line 39');
    expect(text).not.toContain('line 00');
    expect(errors).toEqual([]);
  });

  it('appends to its newest file after a restart, and counts only its own files', async () => {
    await writeFile(path.join(dir, 'requests.9.log'), 'another log\n');
    const first = open('server', 1000, 5);
    await line(first, 'before the restart');
    await end(first);
    const again = open('server', 1000, 5);
    await line(again, 'after the restart');
    await end(again);
    expect(await filesOf('server')).toEqual(['server.1.log']);
    expect(await readFile(path.join(dir, 'server.1.log'), 'utf8')).toBe(
      'before the restart\nafter the restart\n',
    );
    expect(await filesOf('requests')).toEqual(['requests.9.log']);
  });

  it('takes only names of the stem, a number and .log as its files', async () => {
    for (const name of ['server.2.log', 'server.10.log', 'server.x.log', 'server.3.log.gz', 'servers.4.log'])
      await writeFile(path.join(dir, name), '');
    expect(logFileNumbers(dir, 'server')).toEqual([2, 10]);
  });
});
