/**
 * The tray's Pause/Resume sync on a real server started through server/index.ts: while paused, outside edits are
 * not picked up and webhook deliveries are held in the outbox (never dropped), yet API reads and writes work; on
 * resume, the held deliveries go out and the outside edit is noticed.
 */

import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceContext } from '../../server/context.ts';
import { type RunningServer, startServer } from '../../server/index.ts';
import { connectFile, writeCsv } from '../helpers/fixtures.ts';
import { sqliteOf } from '../helpers/sqlite-of.ts';
import { webhookInContext } from '../helpers/webhook-to-receiver.ts';

let dir: string;
let server: RunningServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
  await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('pause and resume sync through startServer', () => {
  it('holds deliveries and outside changes while paused, serves the API, and sends everything on resume', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-pause-'));
    const dataDir = path.join(dir, 'data');
    const file = await writeCsv(dir, 'people.csv', 'Name,Age\nAnn,30\n');

    // Register a connection, a key and a webhook the way the CLI would, before the server starts.
    const setup = createServiceContext({ dataDir, log: () => {} });
    const conn = await connectFile(setup.connections, file);
    const { key } = await setup.keys.create({
      scope: 'read_write',
      plan: 'enterprise',
      perSecond: 10_000,
      daily: 1e6,
    });
    const { receiver } = await webhookInContext(setup, conn, {
      sheetName: 'people',
      events: ['row.inserted'],
    });
    await setup.close();

    server = await startServer({ dataDir, port: 0, host: '127.0.0.1', log: () => {}, requestLog: false });
    const rows = `${server.url}/api/spreadsheets/${conn.userKey}/people`;
    const auth = { authorization: `Bearer ${key}` };
    await sleep(300); // the follower's first look records the baseline
    await server.pauseSync();
    expect(server.status()).toMatchObject({ syncPaused: true, port: server.port });

    // Writes and reads through the API go on while paused.
    const created = await fetch(rows, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ Name: 'Bob', Age: 41 }),
    });
    expect(created.status).toBe(201);
    const read = await fetch(rows, { headers: auth });
    expect(read.status).toBe(200);
    expect(JSON.stringify(await read.json())).toContain('Bob');

    // An edit made outside SheetPort is not watched for while paused.
    await appendFile(file, 'Cy,52\n');
    await sleep(1200);
    expect(receiver.received).toHaveLength(0);
    const pending = () =>
      (server ? sqliteOf(server.context) : null)
        ?.prepare("SELECT count(*) AS n FROM deliveries WHERE state = 'pending'")
        .get() as {
        n: number;
      };
    expect(pending().n).toBe(1); // Bob's insert: held, not dropped
    expect(server.context.spreadsheets.followed()).toEqual([]);

    server.resumeSync();
    expect(server.status().syncPaused).toBe(false);
    await receiver.waitFor(2);
    const inserted = receiver.received.map((r) => JSON.stringify(r.json));
    expect(inserted.some((body) => body.includes('Bob'))).toBe(true);
    expect(inserted.some((body) => body.includes('Cy'))).toBe(true);
    expect(receiver.received.every((r) => r.signatureOk)).toBe(true);
    await receiver.close();
  });
});
