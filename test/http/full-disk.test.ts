/**
 * A full data-dir disk, for real: `sheetport serve` with its data dir on a small tmpfs (test/helpers/
 * tmpfs-server.ts: its own mount namespace, so this runs as root in CI and as any user elsewhere), the workbook
 * on the ordinary disk. Filled to the last byte, the server stays up (the once-a-second usage flush and the
 * other background work meet SQLITE_FULL and survive it), reads answer, writes answer 507 `insufficient_storage`
 * and leave the workbook byte for byte as it was; once the space is back, writes work and are recorded, without
 * a restart.
 *
 * Two ways a write meets the full disk: refused before the file is touched (the free-space margin), and, with the
 * margin off, recording failing after the file was replaced (the replace is undone).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareDataDir } from '../helpers/prepared-data-dir.ts';
import { startTmpfsServer, type TmpfsServer } from '../helpers/tmpfs-server.ts';

let dir: string;
let server: TmpfsServer | null = null;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-full-disk-'));
});

afterEach(async () => {
  await server?.stop();
  server = null;
  await rm(dir, { recursive: true, force: true });
});

const sha = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function scenario(env: Record<string, string>) {
  const { dataDir, book, connection, key } = await prepareDataDir(dir);
  server = await startTmpfsServer(dataDir, 24, env);
  const s = server;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const rows = `${s.url}/api/spreadsheets/${connection.userKey}/People`;
  const read = () => fetch(rows, { headers });
  const append = (name: string) =>
    fetch(rows, { method: 'POST', headers, body: JSON.stringify({ Name: name, Age: 1 }) });
  const feed = async () => {
    const res = await fetch(
      `${s.url}/v1/spreadsheets/${connection.spreadsheetId}/rows?sheet=People&updated_since=2000-01-01T00:00:00Z`,
      { headers },
    );
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { change: string; values: { Name?: string } | null }[] }).data;
  };

  // Before: a write works and is recorded.
  expect((await append('before')).status).toBe(201);
  expect((await feed()).map((e) => e.values?.Name)).toEqual(['before']);

  expect(s.fill()).toBeGreaterThan(0);
  const bytes = await sha(book);
  const { mode } = await stat(book);

  // Reads go on, counted in memory while the usage flush cannot write; the flush runs (and fails) meanwhile and
  // the process lives on.
  for (let i = 0; i < 5; i++) expect((await read()).status).toBe(200);
  await sleep(2500);
  expect(s.alive()).toBe(true);

  for (let i = 0; i < 5; i++) {
    const res = await append(`refused ${i}`);
    expect(res.status).toBe(507);
    const body = (await res.json()) as { error: { code: string; message: string; request_id: string } };
    expect(body.error.code).toBe('insufficient_storage');
    expect(body.error.request_id).toEqual(expect.any(String));
    expect(await sha(book)).toBe(bytes);
  }
  await sleep(1000);
  expect(s.alive()).toBe(true);
  expect((await read()).status).toBe(200);
  expect(await sha(book)).toBe(bytes);
  expect((await stat(book)).mode).toBe(mode);
  // The flush's failure is said once, not once a second.
  expect(s.stderr().match(/Saving usage counts failed/g)).toHaveLength(1);

  // Space back: writes work again and are recorded, without a restart.
  s.free();
  const after = await append('after');
  expect(after.status).toBe(201);
  // The request log writes again too (its lines from the full period are lost).
  const afterId = after.headers.get('x-request-id')!;
  const logged = () => {
    const dir = s.inDataDir('logs');
    return readdirSync(dir)
      .filter((name) => name.startsWith('requests.'))
      .some((name) => readFileSync(path.join(dir, name), 'utf8').includes(afterId));
  };
  for (let waited = 0; waited < 5000 && !logged(); waited += 100) await sleep(100);
  expect(logged()).toBe(true);
  const names = (await feed()).map((e) => e.values?.Name);
  expect(names).toEqual(['before', 'after']);
  const listed = ((await (await read()).json()) as { Name: string }[]).map((r) => r.Name);
  expect(listed).toContain('after');
  expect(listed.filter((n) => String(n).startsWith('refused'))).toEqual([]);
  // The flush, backing off, tries again within its longest wait (10 s) and says it works again.
  for (let waited = 0; waited < 15_000 && !/Saving usage counts works again/.test(s.stderr()); waited += 250)
    await sleep(250);
  expect(s.stderr()).toMatch(/Saving usage counts works again/);
  expect(s.alive()).toBe(true);
  return s.stderr();
}

describe('a full data-dir disk', () => {
  it('refuses writes before touching the workbook (free-space margin), keeps serving reads, recovers', async () => {
    const said = await scenario({ SHEETPORT_MIN_FREE_MB: '4' });
    expect(said).not.toMatch(/Recording changes failed/); // refused before: nothing to record, nothing undone
  }, 60_000);

  it('undoes the replace when recording fails after it (margin off)', async () => {
    const said = await scenario({ SHEETPORT_MIN_FREE_MB: '0', SHEETPORT_BACKUPS_KEEP: '0' });
    // The file was replaced, the recording failed (SQLITE_FULL) and the replace was undone.
    expect(said).toMatch(/Recording changes failed/);
    expect(said).toMatch(/SQLITE_FULL/);
  }, 60_000);
});

/** A webhook receiver that holds every request until told to drop them (the attempt fails) or answers 200. */
async function startHoldingReceiver() {
  let mode: 'hold' | 'ok' = 'hold';
  const held: http.ServerResponse[] = [];
  const delivered: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (mode === 'hold') return void held.push(res);
      delivered.push(Buffer.concat(chunks).toString('utf8'));
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    held: () => held.length,
    delivered,
    /** Every held request fails (its connection is cut); later ones are answered 200. */
    dropHeldThenAnswer() {
      mode = 'ok';
      for (const res of held.splice(0)) res.socket?.destroy();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('webhook notifications queued when the disk fills', () => {
  it('are kept and sent once there is room again', async () => {
    const { dataDir, connection, key } = await prepareDataDir(dir);
    // A short lease: an attempt whose outcome could not be recorded is claimable again soon.
    server = await startTmpfsServer(dataDir, 24, {
      SHEETPORT_MIN_FREE_MB: '4',
      SHEETPORT_DELIVERY_CLAIM_MS: '1500',
    });
    const s = server;
    const receiver = await startHoldingReceiver();
    try {
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const registered = await fetch(`${s.url}/v1/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          url: receiver.url,
          spreadsheet_id: connection.spreadsheetId,
          sheet_name: 'People',
          events: ['row.inserted'],
        }),
      });
      expect(registered.status).toBe(201);
      const rows = `${s.url}/api/spreadsheets/${connection.userKey}/People`;
      const append = (name: string) =>
        fetch(rows, { method: 'POST', headers, body: JSON.stringify({ Name: name, Age: 1 }) });
      const queued = ['queued 1', 'queued 2', 'queued 3'];
      for (const name of queued) expect((await append(name)).status).toBe(201);
      for (let waited = 0; waited < 10_000 && receiver.held() < queued.length; waited += 100)
        await sleep(100);
      expect(receiver.held()).toBe(queued.length);

      // The disk fills while the attempts are out; they fail, and neither their failure nor the next claim can
      // be recorded.
      s.fill();
      receiver.dropHeldThenAnswer();
      await sleep(4000);
      expect(s.alive()).toBe(true);
      expect(receiver.delivered).toEqual([]);

      s.free();
      expect((await append('after')).status).toBe(201);
      const names = [...queued, 'after'];
      const arrived = () => names.filter((n) => receiver.delivered.some((body) => body.includes(`"${n}"`)));
      for (let waited = 0; waited < 20_000 && arrived().length < names.length; waited += 200)
        await sleep(200);
      expect(arrived()).toEqual(names);
      expect(s.stderr()).toMatch(/Webhook delivery worker \(recording an attempt\) failed/);
      expect(s.alive()).toBe(true);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
