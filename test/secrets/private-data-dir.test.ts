/**
 * The whole service over a data dir that already existed with mode 0755: every file SheetPort creates in it is
 * 0600, and a webhook secret created (and replayed) through the API is on disk only sealed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, startHarness } from '../helpers/harness.ts';

let h: Harness | undefined;
let root: string;
afterEach(async () => {
  await h?.close();
  h = undefined;
  fs.rmSync(root, { recursive: true, force: true });
});

type FileSeen = { file: string; mode: number; text: string };

/** Every file under `dir` with its mode and bytes. The service keeps writing behind its answers (a read's kept
 *  form goes to a `.part` then is renamed), so a file listed may be gone a moment later: it is skipped, and its
 *  renamed successor is in the next walk. */
function filesUnder(dir: string): FileSeen[] {
  const seen: FileSeen[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    try {
      const mode = fs.statSync(file).mode & 0o777;
      seen.push({ file, mode, text: fs.readFileSync(file).toString('latin1') });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return seen;
}

describe('a pre-existing 0755 data dir', () => {
  it('gets only 0600 files, and the webhook secret the API returned is nowhere on disk in plaintext', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-modes-'));
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(dataDir);
    fs.chmodSync(dataDir, 0o755);
    h = await startHarness({ dataDir });
    const conn = await h.connect(await writePeopleWorkbook(h.dir));
    const create = () =>
      h!.fetch('/v1/webhooks', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'create-1' },
        body: JSON.stringify({
          url: 'https://example.com/hook',
          spreadsheet_id: conn.spreadsheetId,
          sheet_name: 'People',
        }),
      });
    const first = await create();
    expect(first.status).toBe(201);
    const { secret } = await first.json();
    const repeat = await create();
    expect(repeat.status).toBe(201);
    expect((await repeat.json()).secret).toBe(secret); // the stored answer opens again, secret included

    // Once the writes behind the answers are done (no `.part` left), the whole dir is walked again.
    const during = filesUnder(dataDir);
    await vi.waitFor(() => expect(filesUnder(dataDir).filter((f) => f.file.endsWith('.part'))).toEqual([]), {
      timeout: 10_000,
    });
    const files = [...during, ...filesUnder(dataDir)];
    expect(files.map((f) => path.basename(f.file))).toEqual(
      expect.arrayContaining([
        'sheetport.db',
        'sheetport.db-wal',
        'sheetport.db-shm',
        'secrets.json',
        'secrets-provider.json',
      ]),
    );
    for (const { file, mode } of files) expect(mode, file).toBe(0o600);

    const key = (secret as string).slice('whsec_'.length);
    const onDisk = files.map((f) => f.text).join('\n');
    expect(onDisk).not.toContain(key);
  });
});
