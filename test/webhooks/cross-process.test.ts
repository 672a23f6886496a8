/**
 * Work queued by another process (the CLI in a second terminal) reaches a running, idle server's delivery
 * worker within a second: the worker polls SQLite's data_version, so nothing else has to wake it. SQLite only
 * (a data dir shared with the CLI); with PostgreSQL, other instances are heard through NOTIFY
 * (test/store-pg/outbox.test.ts).
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliJson } from '../helpers/cli.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';
import { webhookOverHttp } from '../helpers/webhook-to-receiver.ts';

let h: Harness;
let closeReceiver: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeReceiver?.();
  await h?.close();
});

/** `sheetport ...args --json --data-dir D` as a real second process. */
const cli = (dataDir: string, ...args: string[]): Promise<unknown> => cliJson(args, { dataDir });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('work queued by another process', () => {
  it('a CLI replay and a CLI resume reach a real receiver within 2 s while the server is idle', async () => {
    h = await startHarness();
    const conn = await h.connect(await writePeopleWorkbook(h.dir));
    h.context.startBackground();
    const { receiver: r, webhookId } = await webhookOverHttp(h, conn);
    closeReceiver = r.close;
    const append = (name: string) =>
      h.fetch(rowsPath(conn, 'People'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Name: name }),
      });

    // One delivery that succeeded (to be replayed), then one held by a pause (to be resumed).
    expect((await append('Sent')).status).toBe(201);
    await r.waitFor(1);
    const sentId = String(r.received[0]!.headers['x-service-delivery']);
    await h.fetch(`/v1/webhooks/${webhookId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'paused' }),
    });
    expect((await append('Held')).status).toBe(201);
    // Idle: nothing due for an active webhook, so the worker has no timer of its own.
    await sleep(1500);
    expect(r.received).toHaveLength(1);
    expect(await h.context.deliveries.nextDueAt()).toBeNull();

    const dataDir = path.join(h.dir, 'data');
    await cli(dataDir, 'webhooks', 'resume', webhookId);
    const resumed = performance.now();
    await r.waitFor(2, 2000);
    const resumeMs = performance.now() - resumed;
    const held = r.received[1]!.json as { changed_rows: { after: { Name: string } }[] };
    expect(held.changed_rows[0]!.after.Name).toBe('Held');
    expect(r.received[1]!.signatureOk).toBe(true);

    // Idle again; then a replay of the first delivery from the CLI.
    await sleep(1500);
    expect(await h.context.deliveries.nextDueAt()).toBeNull();
    await cli(dataDir, 'deliveries', 'replay', sentId);
    const replayQueued = performance.now();
    await r.waitFor(3, 2000);
    const replayMs = performance.now() - replayQueued;
    expect(r.received[2]!.headers['x-service-delivery']).toBe(sentId);
    expect(r.received[2]!.signatureOk).toBe(true);

    // Both well inside the 1 s the worker promises (the poll runs every 250 ms).
    expect(replayMs).toBeLessThan(1000);
    expect(resumeMs).toBeLessThan(1000);
    console.info(
      `cross-process pickup: replay ${Math.round(replayMs)} ms, resume ${Math.round(resumeMs)} ms`,
    );
  }, 30_000);
});
