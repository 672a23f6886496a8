/**
 * A workbook its owner made read-only (mode 0444) is never written: a write answers 502 `upstream_error` with
 * `reason: "read_only"` and leaves the file's bytes and mode as they were, reads go on, and the dashboard's
 * connection JSON says `read_only: true`.
 *
 * Two real set-ups: `sheetport serve` running as an ordinary user who owns the file and its folder (so a rename
 * over it would succeed: exactly the case to refuse); as root (CI) the server is started as `nobody` through
 * setpriv, as any other user it simply runs as that user. And the service running as whoever runs the tests
 * (root in CI, where `access(W_OK)` says yes to everything and only the mode tells).
 */
import { createHash } from 'node:crypto';
import { chmod, chown, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServe, startServe } from '../../helpers/cli.ts';
import { writePeopleWorkbook } from '../../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { prepareDataDir } from '../../helpers/prepared-data-dir.ts';

const NOBODY = 65534;
const sha = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

let dir: string | null = null;
let server: RunningServe | null = null;
let h: Harness | null = null;

afterAll(async () => {
  await server?.stop('SIGTERM');
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Refusal {
  error: { code: string; reason?: string; message: string; request_id: string };
}

async function expectRefused(res: Response, file: string): Promise<void> {
  expect(res.status).toBe(502);
  const body = (await res.json()) as Refusal;
  expect(body.error.code).toBe('upstream_error');
  expect(body.error.reason).toBe('read_only');
  expect(body.error.message).toContain(path.basename(file));
  expect(body.error.message).not.toContain(path.dirname(file)); // no paths reach a client
}

describe('a workbook its owner made read-only', () => {
  it('is not written by `sheetport serve` running as an ordinary user who owns it and its folder', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-read-only-'));
    const { dataDir, book, connection, key, adminToken } = await prepareDataDir(dir);

    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      // Everything belongs to the ordinary user the server runs as: the folder is theirs to rename in.
      for (const p of [dir, dataDir, book]) await chown(p, NOBODY, NOBODY);
      const { readdir } = await import('node:fs/promises');
      for (const name of await readdir(dataDir, { recursive: true }))
        await chown(path.join(dataDir, name), NOBODY, NOBODY);
    }
    await chmod(book, 0o444);
    const before = { bytes: await sha(book), mode: (await stat(book)).mode };

    server = await startServe(
      dataDir,
      asRoot
        ? {
            wrap: ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'],
            env: { HOME: dir },
          }
        : {},
    );
    const { url } = server;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const rows = `${url}/api/spreadsheets/${connection.userKey}/People`;

    await expectRefused(
      await fetch(rows, { method: 'POST', headers, body: JSON.stringify({ Name: 'Dee' }) }),
      book,
    );
    await expectRefused(
      await fetch(`${rows}/1`, { method: 'PATCH', headers, body: JSON.stringify({ Age: 99 }) }),
      book,
    );
    await expectRefused(await fetch(`${rows}/1`, { method: 'DELETE', headers }), book);
    const read = await fetch(rows, { headers });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { Name: string }[])[0]!.Name).toBe('Ann');

    const after = await stat(book);
    expect(await sha(book)).toBe(before.bytes);
    expect(after.mode).toBe(before.mode);
    if (asRoot) expect(after.uid).toBe(NOBODY);

    const listed = await fetch(`${url}/admin/connections`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(listed.status).toBe(200);
    const { data } = (await listed.json()) as { data: { spreadsheet_id: string; read_only: boolean }[] };
    expect(data.find((c) => c.spreadsheet_id === connection.spreadsheetId)?.read_only).toBe(true);
  }, 30_000);

  it('is not written by the service running as this user (root in CI), and is again once writable', async () => {
    h = await startHarness();
    const book = await writePeopleWorkbook(h.dir);
    const connection = await h.connect(book);
    await chmod(book, 0o444);
    const before = { bytes: await sha(book), mode: (await stat(book)).mode };
    const json = { 'content-type': 'application/json' };

    await expectRefused(
      (await h.fetch(rowsPath(connection, 'People'), {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ Name: 'Dee' }),
      })) as unknown as Response,
      book,
    );
    expect((await h.fetch(rowsPath(connection, 'People'))).status).toBe(200);
    expect(await sha(book)).toBe(before.bytes);
    expect((await stat(book)).mode).toBe(before.mode);

    const adminList = async () =>
      (await (await h!.fetch('/admin/connections', { auth: h!.context.adminToken })).json()).data.find(
        (c: { spreadsheet_id: string }) => c.spreadsheet_id === connection.spreadsheetId,
      );
    expect((await adminList()).read_only).toBe(true);

    // The owner allows writes again: they work, and the card no longer says read-only.
    await chmod(book, 0o644);
    const res = await h.fetch(rowsPath(connection, 'People'), {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ Name: 'Dee' }),
    });
    expect(res.status).toBe(201);
    expect((await adminList()).read_only).toBe(false);
  });
});
