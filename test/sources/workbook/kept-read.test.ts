/**
 * A file's read kept in the data dir by its content (guard/kept-read.ts): a later source on the same bytes (the
 * next start, or `serve` after `connect`) answers from it without the parse thread, the same tabs to the value and
 * the format, while changed bytes, even with the file's old size and time put back, are parsed anew; a damaged
 * kept read is never used. Real files (a workbook written by openpyxl, every workbook Excel saved in the corpus,
 * CSV text), the real parse thread.
 *
 * Every parse keeps its read behind its answer (a close waits for it), replacing the kept file (a new file
 * renamed into place: a new inode), so a read that leaves the kept file's inode as it was did not parse; one
 * that parsed leaves a new one.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveFileLimits } from '../../../server/config.ts';
import { type KeptReadsPolicy, keptReadsPolicyFor } from '../../../server/sources/kept-reads.ts';
import type { SpreadsheetSnapshot } from '../../../server/sources/source.ts';
import { keptReadFile } from '../../../server/sources/workbook/guard/kept-read.ts';
import { FileReads } from '../../../server/sources/workbook/guard/parse-or-kept.ts';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { runPython } from '../../helpers/openpyxl.ts';
import { writeTallXlsx } from '../../helpers/tall-sheet.ts';
import { removeTempDirs, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

const MAKE = `
import sys, datetime, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Orders'
ws.append(['Name', 'Qty', 'Price', 'When', 'Paid', 'Total'])
for i in range(1, 3000):
    ws.append(['n%d' % (i % 37), i, i * 1.25, datetime.date(2026, 1, 1) + datetime.timedelta(days=i), i % 2 == 0, '=B%d*C%d' % (i + 1, i + 1)])
for row in ws.iter_rows(min_row=2, min_col=3, max_col=3):
    row[0].number_format = '#,##0.00'
other = wb.create_sheet('Notes')
other.append(['Text'])
other.append(['caf\\u00e9 \\u2603'])
wb.save(sys.argv[1])
`;

async function keptReadsIn(dir: string) {
  const policy = keptReadsPolicyFor(dir, 0);
  const files = async () => (await fs.readdir(policy.dir).catch(() => [] as string[])).sort();
  return { policy, files };
}

/** What a reader sees of the tabs: values, displayed texts, formulas. */
const seen = (snap: SpreadsheetSnapshot) =>
  snap.tabs.map((tab) => ({
    name: tab.name,
    header: tab.header,
    typed: tab.typed,
    formatted: tab.formatted,
    withFormulas: (tab as { withFormulas?: unknown }).withFormulas,
  }));

/**
 * One start's read, then its close: a read is kept behind its answer, and a close waits for the keep (as
 * `sheetport connect` does before it exits).
 */
async function readOnce(file: string, keptReads: KeptReadsPolicy) {
  const source = createWorkbookSource(file, { keptReads });
  try {
    return await source.read();
  } finally {
    await source.close();
  }
}

/** The kept file's inode: a parse's keep replaces the file, a read from it leaves it. */
const inodeOf = async (file: string) => (await fs.stat(file)).ino;

describe('a read kept by its content', () => {
  it('answers the next start with the same tabs, without a parse', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'orders.xlsx');
    await runPython(MAKE, [file]);
    const { policy, files } = await keptReadsIn(dir);

    const first = await readOnce(file, policy);
    const kept = await files();
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatch(/\.read$/);
    expect((await fs.stat(path.join(policy.dir, kept[0]!))).mode & 0o777).toBe(0o600);
    expect((await fs.stat(policy.dir)).mode & 0o777).toBe(0o700);

    const keptFile = path.join(policy.dir, kept[0]!);
    const inode = await inodeOf(keptFile);
    const again = await readOnce(file, policy);
    expect(await inodeOf(keptFile)).toBe(inode);
    expect(await files()).toEqual(kept);
    expect(seen(again)).toEqual(seen(first));
    expect(again.tabs[0]!.typed[0]).toEqual(['n1', 1, 1.25, '2026-01-02', false, 1.25]);
    expect(again.tabs[0]!.formatted[0]![2]).toBe('1.25');
  });

  it("takes over the file's bytes, as a parse does: a read from the kept read gives them back at once", async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'orders.xlsx');
    await runPython(MAKE, [file]);
    const { policy } = await keptReadsIn(dir);
    const reads = new FileReads(policy);
    const request = async () => ({
      engine: 'xlsx' as const,
      filePath: file,
      bytes: new Uint8Array(await fs.readFile(file)).slice(), // a buffer of its own, as the service reads
      limits: resolveFileLimits({}, {}),
    });
    const parsed = await request();
    const size = parsed.bytes.byteLength;
    const first = await reads.read(parsed); // parsed, and kept behind the answer
    expect(parsed.bytes.byteLength).toBe(0); // moved to the parse thread
    await reads.close(); // waits for the keep
    const fromKept = await request();
    expect(fromKept.bytes.byteLength).toBe(size);
    const again = new FileReads(policy);
    expect(await again.read(fromKept)).toEqual(first);
    expect(fromKept.bytes.byteLength).toBe(0); // given back, not left to a full collection
    await again.close();
  });

  it('reads every workbook Excel saved (the corpus) the same from its kept read as from its parse', async () => {
    const dir = await tempDir();
    const { policy } = await keptReadsIn(dir);
    const corpus = path.join(import.meta.dirname, '../../fixtures/xlsx-corpus');
    const names = (await fs.readdir(corpus)).filter((name) => /\.xls[xm]$/.test(name));
    expect(names.length).toBeGreaterThan(400);
    const differ: string[] = [];
    for (const name of names) {
      const file = path.join(corpus, name);
      const parsed = seen(await readOnce(file, policy));
      const keptFile = keptReadFile(policy, file);
      const inode = await inodeOf(keptFile);
      const fromKept = seen(await readOnce(file, policy));
      if (JSON.stringify(fromKept) !== JSON.stringify(parsed) || (await inodeOf(keptFile)) !== inode) {
        differ.push(name);
      }
    }
    expect(differ).toEqual([]);
  }, 300_000);

  it('reads changed bytes anew, even with the old size and time put back', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'people.csv');
    const lines = Array.from({ length: 20_000 }, (_, i) => `r${String(i).padStart(5, '0')},${i % 10}`);
    await fs.writeFile(file, `name,qty\n${lines.join('\n')}\n`);
    // A whole second, which utimes puts back exactly.
    const time = new Date('2026-01-02T03:04:05Z');
    await fs.utimes(file, time, time);
    const before = await fs.stat(file);
    const { policy } = await keptReadsIn(dir);
    const first = await readOnce(file, policy);
    expect(first.tabs[0]!.typed[0]).toEqual(['r00000', 0]);
    // Same size, same inode, same modification time: only the content says it changed.
    const handle = await fs.open(file, 'r+');
    await handle.write('x00000,9', 'name,qty\n'.length);
    await handle.close();
    await fs.utimes(file, time, time);
    const after = await fs.stat(file);
    expect([after.size, after.ino, after.mtimeMs]).toEqual([before.size, before.ino, before.mtimeMs]);

    const keptFile = keptReadFile(policy, file);
    const inode = await inodeOf(keptFile);
    const again = await readOnce(file, policy);
    expect(again.tabs[0]!.typed[0]).toEqual(['x00000', 9]);
    expect(await inodeOf(keptFile)).not.toBe(inode);
    expect(again.tabs[0]!.typed).toHaveLength(20_000);
  });

  it('never uses a damaged kept read, and keeps a whole one again', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'orders.xlsx');
    await runPython(MAKE, [file]);
    const { policy, files } = await keptReadsIn(dir);
    const first = await readOnce(file, policy);
    const keptFile = path.join(policy.dir, (await files())[0]!);
    const whole = await fs.readFile(keptFile);

    // One byte flipped in the middle of the file (among the cells' values).
    const damaged = Buffer.from(whole);
    const at = Math.floor(damaged.length / 2);
    damaged[at] = damaged[at]! ^ 0xff;
    // Each damaged form is not used: the read parses (and keeps a whole read again, a new file).
    const cut = whole.subarray(0, whole.length - 8);
    for (const bytes of [damaged, cut, Buffer.from('not a kept read')]) {
      await fs.writeFile(keptFile, bytes);
      const inode = await inodeOf(keptFile);
      expect(seen(await readOnce(file, policy))).toEqual(seen(first));
      expect(await inodeOf(keptFile)).not.toBe(inode);
    }
    // And that one is used.
    const inode = await inodeOf(keptFile);
    expect(seen(await readOnce(file, policy))).toEqual(seen(first));
    expect(await inodeOf(keptFile)).toBe(inode);
  });

  it('keeps nothing once its file has closed (a stopped service), whether it closed before or during the parse', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'tall.xlsx');
    // About a second's parse: the close lands while it goes on, well before its end.
    await writeTallXlsx(file, 4, 250_000);
    const { policy, files } = await keptReadsIn(dir);
    for (const closeAfterMs of [0, 250]) {
      const source = createWorkbookSource(file, { keptReads: policy });
      const reading = source.read().catch(() => null);
      await new Promise((resolve) => setTimeout(resolve, closeAfterMs));
      await source.close();
      // The parse goes on to its end, but writes nothing into the data dir: not even a file beside the kept one.
      await reading;
      expect(await files()).toEqual([]);
    }
    // Not closed, it keeps.
    await readOnce(file, policy);
    expect(await files()).toHaveLength(1);
  }, 60_000);

  it('keeps nothing that would leave the disk below its floor, and drops reads unused for a month', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'people.csv');
    await fs.writeFile(file, 'name,qty\nann,1\n');
    const floorAboveAnyDisk = { ...keptReadsPolicyFor(dir, Number.MAX_SAFE_INTEGER) };
    await readOnce(file, floorAboveAnyDisk);
    await expect(fs.readdir(floorAboveAnyDisk.dir)).resolves.toEqual([]);

    const { policy, files } = await keptReadsIn(dir);
    const old = path.join(policy.dir, 'gone.read');
    const recent = path.join(policy.dir, 'kept.read');
    const interrupted = path.join(policy.dir, 'x.read.123.456.part');
    for (const f of [old, recent, interrupted]) await fs.writeFile(f, 'x');
    const monthAgo = new Date(Date.now() - 31 * 86_400_000);
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await fs.utimes(old, monthAgo, monthAgo);
    await fs.utimes(interrupted, twoHoursAgo, twoHoursAgo);
    await readOnce(file, policy);
    const left = await files();
    expect(left).toContain('kept.read');
    expect(left).not.toContain('gone.read');
    expect(left).not.toContain('x.read.123.456.part');
    expect(left.filter((name) => name.endsWith('.read'))).toHaveLength(2);
  });
});
