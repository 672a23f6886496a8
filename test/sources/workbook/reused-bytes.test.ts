/**
 * A replacement takes the bytes it shares with the file it replaces from a kernel copy of that file, and writes
 * only the rest (server/sources/workbook/reused-bytes.ts, atomic-file.ts). On real files: the result is exactly
 * the new chunks whatever moved, grew or shrank; nothing is reused once another program has saved the file, or
 * for a chunk that moved; and, through the real path (HTTP, a 90,000-row sheet written by openpyxl, so its
 * unchanged compressed pieces are megabytes), a run of writes reuses bytes and openpyxl reads every row back as
 * the writes left it.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { replaceFileAtomically } from '../../../server/sources/workbook/atomic-file.ts';
import { signatureOf } from '../../../server/sources/workbook/file-signature.ts';
import { reusePlan, reuseTotals } from '../../../server/sources/workbook/reused-bytes.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { rowsByOpenpyxl } from '../../helpers/mcp-workbook.ts';
import { runPython } from '../../helpers/openpyxl.ts';
import { removeTempDirs, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

const MB = 2 ** 20;
const signature = (file: string) => signatureOf(fs.statSync(file));

describe('a replacement made from a copy of the file', () => {
  it('holds exactly the new chunks, reusing those at the same place', async () => {
    const file = path.join(await tempDir(), 'chunks.bin');
    fs.writeFileSync(file, 'first version');
    const head = randomBytes(6 * MB);
    const middle = randomBytes(1000);
    const tail = randomBytes(2 * MB);
    await replaceFileAtomically(file, [head, middle, tail]);
    expect(fs.readFileSync(file).equals(Buffer.concat([head, middle, tail]))).toBe(true);

    // `head` stays where it was; the rest changes, moves and shrinks.
    const next = [head, randomBytes(10), tail.subarray(0, MB), randomBytes(3)];
    const plan = reusePlan(file, signature(file), next);
    expect(plan?.reused).toBe(6 * MB);
    expect(plan?.runs.map((r) => r.position)).toEqual([6 * MB]);
    const before = reuseTotals().copies;
    await replaceFileAtomically(file, next);
    expect(reuseTotals().copies).toBe(before + 1);
    expect(fs.readFileSync(file).equals(Buffer.concat(next))).toBe(true);

    // Grows: everything after the reused bytes is written, past the old end.
    const grown = [head, randomBytes(10), tail, tail];
    await replaceFileAtomically(file, grown);
    expect(fs.readFileSync(file).equals(Buffer.concat(grown))).toBe(true);
  });

  it('reuses nothing of a file another program saved since, or of a chunk that moved', async () => {
    const file = path.join(await tempDir(), 'chunks.bin');
    fs.writeFileSync(file, '');
    const big = randomBytes(8 * MB);
    await replaceFileAtomically(file, [big]);
    expect(reusePlan(file, signature(file), [randomBytes(1), big])).toBeNull(); // moved by a byte

    const outside = randomBytes(8 * MB);
    fs.writeFileSync(`${file}.new`, outside);
    fs.renameSync(`${file}.new`, file);
    expect(reusePlan(file, signature(file), [big])).toBeNull();
    await replaceFileAtomically(file, [big, randomBytes(5)]);
    expect(
      fs
        .readFileSync(file)
        .subarray(0, 8 * MB)
        .equals(big),
    ).toBe(true);
  });
});

describe('where a chunk was last written', () => {
  it('is one place: a chunk written twice in a file, or since to another file, is not taken from the first', async () => {
    const dir = await tempDir();
    const [one, two] = [path.join(dir, 'one.bin'), path.join(dir, 'two.bin')];
    const shared = randomBytes(5 * MB);
    const own = randomBytes(5 * MB);
    fs.writeFileSync(one, '');
    fs.writeFileSync(two, '');
    await replaceFileAtomically(one, [shared, own]);
    expect(reusePlan(one, signature(one), [shared, own])?.reused).toBe(10 * MB);

    // Written to another file since: its place is there now, and the first file takes only `own` from itself.
    await replaceFileAtomically(two, [shared]);
    expect(reusePlan(one, signature(one), [shared, own])?.reused).toBe(5 * MB);
    expect(reusePlan(two, signature(two), [shared, randomBytes(1)])?.reused).toBe(5 * MB);

    // Twice in one file: neither copy is reused, though each is at an offset it was written at; `own` is.
    const twice = [shared, shared, own];
    await replaceFileAtomically(one, twice);
    expect(fs.readFileSync(one).equals(Buffer.concat(twice))).toBe(true);
    expect(reusePlan(one, signature(one), twice)?.reused).toBe(5 * MB);
    await replaceFileAtomically(one, [shared, shared, own, own]);
    expect(fs.readFileSync(one).equals(Buffer.concat([shared, shared, own, own]))).toBe(true);
  });
});

describe('a copy on a full disk', () => {
  it('fails as a write does: the file stays as it was and nothing is left beside it', async () => {
    // A real full disk: a 24 MB tmpfs in a mount namespace of its own (as test/helpers/tmpfs-server.ts does).
    const module = path.resolve(import.meta.dirname, '../../../server/sources/workbook/atomic-file.ts');
    const script = `
      const fs = await import('node:fs');
      const { createHash, randomBytes } = await import('node:crypto');
      const { replaceFileAtomically } = await import(${JSON.stringify(module)});
      const file = process.argv[1] + '/book.bin';
      fs.writeFileSync(file, '');
      const big = randomBytes(9 * 2 ** 20);
      await replaceFileAtomically(file, [big, randomBytes(10)]);
      const before = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
      // Fill the disk but for a megabyte: the copy of 9 MB cannot fit.
      const free = fs.statfsSync(process.argv[1]);
      fs.writeFileSync(process.argv[1] + '/filler', Buffer.alloc(Number(free.bavail * free.bsize) - 2 ** 20));
      let code = 'none';
      try { await replaceFileAtomically(file, [big, randomBytes(20)]); } catch (e) { code = e.code; }
      const after = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
      console.log(JSON.stringify({ code, same: before === after, files: fs.readdirSync(process.argv[1]).sort() }));
    `;
    const dir = await tempDir();
    const namespaces = process.getuid?.() === 0 ? ['--mount'] : ['--user', '--map-root-user', '--mount'];
    const shell = 'set -e; mount -t tmpfs -o size=24m tmpfs "$1"; shift; exec "$@"';
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('unshare', [
        ...namespaces,
        'sh',
        '-c',
        shell,
        'sh',
        dir,
        process.execPath,
        '--input-type=module',
        '-e',
        script,
        dir,
      ]);
      let text = '';
      child.stdout.on('data', (c) => {
        text += c;
      });
      child.stderr.on('data', (c) => {
        text += c;
      });
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(text))));
    });
    expect(JSON.parse(out)).toEqual({ code: 'ENOSPC', same: true, files: ['book.bin', 'filler'] });
  });
});

describe('writes to a large sheet', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('reuse the unchanged pieces, and openpyxl reads every row as the writes left it', async () => {
    h = await startHarness();
    const book = path.join(h.dir, 'large.xlsx');
    await runPython(
      `
import sys, random, openpyxl
rnd = random.Random(7)
wb = openpyxl.Workbook(write_only=True)
ws = wb.create_sheet('Data')
ws.append(['Key', 'Text', 'Number'])
for i in range(90000):
    ws.append([f'k{i}', rnd.randbytes(40).hex(), i])
wb.save(sys.argv[1])
`,
      [book],
    );
    const expected = await rowsByOpenpyxl(book, 'Data');
    const connection = await h.connect(book);
    const rows = rowsPath(connection, 'Data');
    expect((await h.fetch(`${rows}?limit=1`)).status).toBe(200);

    const json = { 'content-type': 'application/json' };
    const before = reuseTotals();
    for (const [row, text] of [
      [10, 'first write'],
      [80_000, 'near the end'],
      [45_000, 'in the middle'],
    ] as const) {
      const patched = await h.fetch(`${rows}/${row}`, {
        method: 'PATCH',
        headers: json,
        body: JSON.stringify({ Text: text }),
      });
      expect(patched.status).toBe(200);
      (expected[row] as unknown[])[1] = text;
    }
    const appended = await h.fetch(rows, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ Key: 'new', Text: 'appended', Number: -1 }),
    });
    expect(appended.status).toBe(201);
    expected.push(['new', 'appended', -1]);
    expect((await h.fetch(`${rows}/3`, { method: 'DELETE' })).status).toBe(200);
    expected.splice(3, 1);

    const after = reuseTotals();
    // The update near the end (5.5 of 6.2 MB before it) and the append (all but the last piece) reuse; the
    // first write has nothing remembered, the update in the middle reuses under 4 MB, and the delete near the top
    // renumbers every piece after it.
    expect(after.copies - before.copies).toBe(2);
    expect(after.reusedBytes - before.reusedBytes).toBeGreaterThan(10 * MB);
    expect(await rowsByOpenpyxl(book, 'Data')).toEqual(expected);
  }, 120_000);
});
