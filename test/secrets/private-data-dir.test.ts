/**
 * The whole service over a data dir that already existed with mode 0755: every file SheetPort creates in it is
 * 0600, and a webhook secret created (and replayed) through the API is on disk only sealed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, startHarness } from '../helpers/harness.ts';

let h: Harness | undefined;
let root: string;
afterEach(async () => {
  await h?.close();
  h = undefined;
  fs.rmSync(root, { recursive: true, force: true });
});

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
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

    const files = filesUnder(dataDir);
    expect(files.map((f) => path.basename(f))).toEqual(
      expect.arrayContaining([
        'sheetport.db',
        'sheetport.db-wal',
        'sheetport.db-shm',
        'secrets.json',
        'secrets-provider.json',
      ]),
    );
    for (const file of files) expect(fs.statSync(file).mode & 0o777, file).toBe(0o600);

    const key = (secret as string).slice('whsec_'.length);
    const onDisk = files.map((f) => fs.readFileSync(f).toString('latin1')).join('\n');
    expect(onDisk).not.toContain(key);
  });
});
