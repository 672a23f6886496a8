import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceContext } from '../../server/context.ts';
import { startServer } from '../../server/index.ts';
import { openSqliteRepositories } from '../../server/store/sqlite-repositories.ts';
import { type CliRun, cliError, runCli, succeeded } from '../helpers/cli.ts';
import { queueDelivery } from '../helpers/outbox.ts';
import { sqliteOf } from '../helpers/sqlite-of.ts';

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/;

let tmp: string;
let dataDir: string;
let spreadsheetId: string;
let userKey: string;

/** `node bin/sheetport.js ...args --data-dir <tmp>` as a real child process. */
const run = (args: string[]): Promise<CliRun> => runCli(args, { dataDir, cwd: tmp });

/** With --json; exits 0 with nothing on stderr; parsed stdout. */
async function ok<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  const full = [...args, '--json'];
  return JSON.parse(succeeded(full, await run(full)).stdout) as T;
}

/** Without --json; exits 0; stdout. */
async function human(...args: string[]): Promise<string> {
  return succeeded(args, await run(args)).stdout;
}

/** Exit 1, nothing on stdout, one JSON error line on stderr (and a one-line `error: ...` without --json). */
async function fails(...args: string[]): Promise<{ code: string; message: string }> {
  const full = [...args, '--json'];
  return cliError(full, await run(full));
}

interface WebhookJson {
  webhook_id: string;
  url: string;
  spreadsheet_id: string;
  sheet_name: string;
  events: string[];
  status: string;
  created_at: string;
  updated_at: string;
}

async function storedSecret(id: string): Promise<string | null> {
  const repositories = openSqliteRepositories(dataDir);
  try {
    return await repositories.webhooks.secretOf(id);
  } finally {
    await repositories.close();
  }
}

beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-webhooks-cli-')));
  dataDir = path.join(tmp, 'data');
  const wb = new ExcelJS.Workbook();
  const orders = wb.addWorksheet('Orders');
  orders.addRow(['Id', 'Item']);
  orders.addRow([1, 'Pen']);
  wb.addWorksheet('Notes').addRow(['Note']);
  await wb.xlsx.writeFile(path.join(tmp, 'shop.xlsx'));
  const connected = await ok<{ spreadsheet_id: string; user_key: string }>('connect', 'shop.xlsx');
  spreadsheetId = connected.spreadsheet_id;
  userKey = connected.user_key;
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('sheetport webhooks create / list', () => {
  it('prints the secret once on create; list never shows it', async () => {
    const out = await human(
      'webhooks',
      'create',
      '--url',
      'http://localhost:5678/hook#frag',
      '--spreadsheet',
      userKey,
      '--sheet',
      'Orders',
      '--event',
      'row.inserted',
      '--event',
      'row.deleted',
    );
    const secrets = out.match(/whsec_[A-Za-z0-9+/=]+/g) ?? [];
    expect(secrets).toHaveLength(1);
    expect(out).toMatch(/not shown again/);
    const id = /Created webhook (wh_\S+)/.exec(out)?.[1];
    expect(id).toBeDefined();
    expect(await storedSecret(id!)).toBe(secrets[0]);

    const list = await ok<WebhookJson[]>('webhooks', 'list');
    expect(list).toHaveLength(1);
    expect(Object.keys(list[0]!)).toEqual([
      'webhook_id',
      'url',
      'spreadsheet_id',
      'sheet_name',
      'events',
      'where',
      'columns',
      'status',
      'created_at',
      'updated_at',
    ]);
    expect(list[0]).toMatchObject({
      webhook_id: id,
      url: 'http://localhost:5678/hook', // the fragment is never sent, so not kept
      spreadsheet_id: spreadsheetId,
      sheet_name: 'Orders',
      events: ['row.inserted', 'row.deleted'],
      status: 'active',
    });
    expect(list[0]!.created_at).toMatch(ISO);
    expect(JSON.stringify(list)).not.toContain('whsec_');
    const table = await human('webhooks', 'list');
    expect(table).toContain(id!);
    expect(table).not.toContain('whsec_');
    expect(table).toMatch(ISO);
  });

  it('--json prints the secret with the registration; defaults to all four events', async () => {
    const created = await ok<WebhookJson & { secret: string }>(
      'webhooks',
      'create',
      '--url',
      'https://hooks.example.com/in',
      '--spreadsheet',
      spreadsheetId,
      '--sheet',
      'notes', // case-insensitive when only one tab matches; the tab's real name is kept
    );
    expect(Object.keys(created)).toEqual([
      'webhook_id',
      'secret',
      'url',
      'spreadsheet_id',
      'sheet_name',
      'events',
      'where',
      'columns',
      'status',
      'created_at',
    ]);
    expect(created.secret).toMatch(/^whsec_/);
    expect(created).toMatchObject({
      spreadsheet_id: spreadsheetId,
      sheet_name: 'Notes',
      events: ['row.inserted', 'row.updated', 'row.deleted', 'bulk.import'],
      status: 'active',
    });
    expect(await storedSecret(created.webhook_id)).toBe(created.secret);

    const mine = await ok<WebhookJson[]>('webhooks', 'list', '--spreadsheet', userKey);
    expect(mine.map((w) => w.webhook_id)).toContain(created.webhook_id);
    expect(await ok<WebhookJson[]>('webhooks', 'list', '--spreadsheet', 'wb_other')).toEqual([]);
  });

  it('refuses bad URLs, events, spreadsheets and sheets, and creates nothing', async () => {
    const before = (await ok<WebhookJson[]>('webhooks', 'list')).length;
    const base = ['webhooks', 'create', '--spreadsheet', spreadsheetId, '--sheet', 'Orders'];

    const plainHttp = await fails(...base, '--url', 'http://hooks.example.com/in');
    expect(plainHttp.code).toBe('invalid_parameter');
    expect(plainHttp.message).toMatch(/https/);
    expect((await fails(...base, '--url', 'http://169.254.169.254/latest/meta-data')).message).toMatch(
      /link-local/,
    );
    expect(
      (await fails(...base, '--url', 'https://169.254.169.254/latest/meta-data', '--allow-lan')).message,
    ).toMatch(/link-local/);
    expect((await fails(...base, '--url', 'ftp://example.com/')).message).toMatch(/https/);
    expect((await fails(...base, '--url', 'https://10.1.2.3/hook')).message).toMatch(
      /private network address \(10\.1\.2\.3\); pass --allow-lan-webhooks to register it\.$/,
    );

    const unknownEvent = await fails(...base, '--url', 'https://example.com/h', '--event', 'row.renamed');
    expect(unknownEvent).toMatchObject({ code: 'invalid_parameter' });
    expect(unknownEvent.message).toMatch(/Unknown event 'row.renamed'/);
    expect(
      (await fails(...base, '--url', 'https://example.com/h', '--event', 'row.updated,row.updated')).message,
    ).toMatch(/twice/);

    const noSheet = await fails(
      'webhooks',
      'create',
      '--url',
      'https://example.com/h',
      '--spreadsheet',
      spreadsheetId,
      '--sheet',
      'Missing',
    );
    expect(noSheet.code).toBe('sheet_not_found');
    expect(noSheet.message).toMatch(/"Orders", "Notes"/);
    const noSpreadsheet = await fails(
      'webhooks',
      'create',
      '--url',
      'https://example.com/h',
      '--spreadsheet',
      'wb_nope',
      '--sheet',
      'Orders',
    );
    expect(noSpreadsheet.code).toBe('spreadsheet_not_found');

    // Missing required options: one line, exit 1.
    expect((await fails('webhooks', 'create', '--url', 'https://example.com/h')).message).toMatch(
      /--spreadsheet/,
    );
    // A human error is one `error: ...` line too.
    const r = await run([...base, '--url', 'http://169.254.169.254/']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: Invalid --url: .*link-local.*\n$/);

    expect(await ok<WebhookJson[]>('webhooks', 'list')).toHaveLength(before);
  });

  it('--allow-lan-webhooks lets a private address through, with a note naming the serve flag', async () => {
    const out = await human(
      'webhooks',
      'create',
      '--url',
      'https://192.168.1.20/hook',
      '--spreadsheet',
      spreadsheetId,
      '--sheet',
      'Orders',
      '--allow-lan-webhooks',
    );
    expect(out).toMatch(/Created webhook wh_/);
    expect(out).toMatch(/private \(LAN\) address.*sheetport serve --allow-lan-webhooks/);
    // The old name still works, and is not advertised.
    const old = await ok<WebhookJson>(
      ...['webhooks', 'create', '--url', 'https://192.168.1.21/hook', '--spreadsheet', spreadsheetId],
      ...['--sheet', 'Orders', '--allow-lan'],
    );
    expect(old.url).toBe('https://192.168.1.21/hook');
    const help = await human('webhooks', 'create', '--help');
    expect(help).toMatch(/--allow-lan-webhooks/);
    expect(help).not.toMatch(/--allow-lan\s/);
  });
});

describe('sheetport webhooks: conditions', () => {
  it('create takes --where and --column; condition changes and clears them, checked against the header', async () => {
    const created = await ok<WebhookJson & { where: string | null; columns: string[] | null }>(
      'webhooks',
      'create',
      '--url',
      'https://hooks.example.com/cond',
      '--spreadsheet',
      spreadsheetId,
      '--sheet',
      'Orders',
      '--where',
      "Item starts with 'P'",
      '--column',
      'Item',
    );
    expect(created).toMatchObject({ where: "Item starts with 'P'", columns: ['Item'] });
    const id = created.webhook_id;
    expect(await human('webhooks', 'condition', id, '--where', 'Id > 1')).toContain('where:        Id > 1');
    const both = await ok('webhooks', 'condition', id, '--any-column');
    expect(both).toMatchObject({ where: 'Id > 1', columns: null });
    expect(await fails('webhooks', 'condition', id, '--where', 'Price > 1')).toMatchObject({
      code: 'unknown_field',
    });
    expect(await fails('webhooks', 'condition', id, '--where', 'Id >')).toMatchObject({
      code: 'invalid_parameter',
    });
    expect(await fails('webhooks', 'condition', id)).toMatchObject({ code: 'invalid_parameter' });
    expect(await ok('webhooks', 'condition', id, '--clear')).toMatchObject({ where: null, columns: null });
    expect(await human('webhooks', 'condition', id, '--column', 'Id')).toContain('columns:      Id');
    expect(
      await fails(
        'webhooks',
        'create',
        '--url',
        'https://h.example.com/x',
        '--spreadsheet',
        spreadsheetId,
        '--sheet',
        'Orders',
        '--column',
        'Nope',
      ),
    ).toMatchObject({ code: 'unknown_field' });
    await ok('webhooks', 'delete', id);
  });
});

describe('sheetport webhooks pause / resume / rotate-secret / delete', () => {
  it('changes status, rotates the secret and deletes', async () => {
    const created = await ok<WebhookJson & { secret: string }>(
      'webhooks',
      'create',
      '--url',
      'http://127.0.0.1:9/x',
      '--spreadsheet',
      spreadsheetId,
      '--sheet',
      'Orders',
    );
    const id = created.webhook_id;

    expect(await ok<WebhookJson>('webhooks', 'pause', id)).toMatchObject({
      webhook_id: id,
      status: 'paused',
    });
    expect(await human('webhooks', 'pause', id)).toMatch(/already paused/);
    expect(await ok<WebhookJson>('webhooks', 'resume', id)).toMatchObject({ status: 'active' });
    expect(await human('webhooks', 'pause', id)).toMatch(/^Paused/);
    expect(await human('webhooks', 'resume', id)).toMatch(/^Resumed/);

    const rotated = await ok<{ webhook_id: string; secret: string }>('webhooks', 'rotate-secret', id);
    expect(rotated.webhook_id).toBe(id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(await storedSecret(id)).toBe(rotated.secret);
    const humanRotate = await human('webhooks', 'rotate-secret', id);
    expect(humanRotate.match(/whsec_[A-Za-z0-9+/=]+/g)).toEqual([await storedSecret(id)]);

    expect(await ok('webhooks', 'delete', id)).toEqual({ webhook_id: id, deleted: true });
    expect((await ok<WebhookJson[]>('webhooks', 'list')).map((w) => w.webhook_id)).not.toContain(id);

    for (const cmd of ['pause', 'resume', 'rotate-secret', 'delete']) {
      expect(await fails('webhooks', cmd, id)).toMatchObject({ code: 'not_found' });
    }
  });
});

describe('sheetport deliveries', () => {
  let webhookId: string;
  let failedId: string;
  let succeededId: string;
  let inFlightId: string;
  const t0 = Date.parse('2025-03-01T10:00:00.000Z');
  const payload = { event: 'row.inserted', sheet: 'Orders', rows: [{ Id: 3, Item: 'Cap' }] };

  beforeAll(async () => {
    webhookId = (
      await ok<WebhookJson>(
        'webhooks',
        'create',
        '--url',
        'http://localhost:9/never',
        '--spreadsheet',
        spreadsheetId,
        '--sheet',
        'Orders',
      )
    ).webhook_id;

    const context = createServiceContext({ dataDir, log: () => {} });
    try {
      // Queued as the change recording queues them.
      const db = sqliteOf(context);
      const { deliveries } = context;
      failedId = queueDelivery(db, webhookId, 'row.inserted', JSON.stringify(payload), t0);
      succeededId = queueDelivery(db, webhookId, 'row.updated', '{"event":"row.updated"}', t0 + 1000);
      inFlightId = queueDelivery(db, webhookId, 'row.deleted', '{"event":"row.deleted"}', t0 + 2000);
      await deliveries.settle(
        (await deliveries.get(failedId))!,
        {
          trigger: 'auto',
          startedAt: t0 + 5,
          durationMs: 42,
          status: 500,
          error: 'HTTP 500',
          responseExcerpt: 'upstream\nexploded',
        },
        { state: 'failed', nextAttemptAt: null, completedAt: t0 + 47 },
      );
      await deliveries.settle(
        (await deliveries.get(succeededId))!,
        {
          trigger: 'auto',
          startedAt: t0 + 1005,
          durationMs: 7,
          status: 204,
          error: null,
          responseExcerpt: '',
        },
        { state: 'succeeded', nextAttemptAt: null, completedAt: t0 + 1012 },
      );
      const claimed = await deliveries.claimDue(Date.now(), 10, 60_000, (d) => d.id === inFlightId);
      expect(claimed.map((d) => d.id)).toEqual([inFlightId]);
    } finally {
      await context.close();
    }
  });

  it('lists newest first, filtered by state and limited', async () => {
    const all = await ok<Record<string, unknown>[]>('deliveries', 'list', webhookId);
    expect(all.map((d) => d.delivery_id)).toEqual([inFlightId, succeededId, failedId]);
    expect(all[2]).toEqual({
      delivery_id: failedId,
      webhook_id: webhookId,
      event: 'row.inserted',
      state: 'failed',
      attempts: 1,
      next_attempt_at: null,
      created_at: '2025-03-01T10:00:00.000Z',
      completed_at: '2025-03-01T10:00:00.047Z',
    });
    expect(
      (await ok<Record<string, unknown>[]>('deliveries', 'list', webhookId, '--state', 'failed')).map(
        (d) => d.delivery_id,
      ),
    ).toEqual([failedId]);
    expect(
      (await ok<Record<string, unknown>[]>('deliveries', 'list', webhookId, '--limit', '2')).map(
        (d) => d.delivery_id,
      ),
    ).toEqual([inFlightId, succeededId]);

    const table = await human('deliveries', 'list', webhookId, '--limit', '2');
    expect(table).toMatch(/^DELIVERY_ID\s+EVENT\s+STATE/);
    expect(table).toContain('2025-03-01T10:00:01.000Z');
    expect(table).toMatch(/newest 2 of 3/);
    expect(await human('deliveries', 'list', webhookId, '--state', 'pending')).toMatch(
      /No pending deliveries/,
    );

    expect((await fails('deliveries', 'list', 'wh_nope')).code).toBe('not_found');
    expect((await fails('deliveries', 'list', webhookId, '--state', 'lost')).message).toMatch(/lost/);
    expect((await fails('deliveries', 'list', webhookId, '--limit', '0')).code).toBe('invalid_parameter');
  });

  it('shows the payload and every attempt', async () => {
    const shown = await ok<Record<string, unknown>>('deliveries', 'show', failedId);
    expect(shown).toMatchObject({
      delivery_id: failedId,
      webhook_id: webhookId,
      state: 'failed',
      attempts: 1,
      payload,
      attempt_log: [
        {
          attempt: 1,
          trigger: 'auto',
          started_at: '2025-03-01T10:00:00.005Z',
          duration_ms: 42,
          status: 500,
          error: 'HTTP 500',
          response_excerpt: 'upstream\nexploded',
        },
      ],
    });

    const out = await human('deliveries', 'show', failedId);
    expect(out).toContain(`Delivery ${failedId} (row.inserted) of webhook ${webhookId}`);
    expect(out).toContain('"Item": "Cap"');
    expect(out).toMatch(/#1 {2}2025-03-01T10:00:00\.005Z {2}auto {2}HTTP 500 {2}42 ms/);
    expect(out).toContain('response:  upstream exploded');
    expect(out).toMatch(/completed: +2025-03-01T10:00:00\.047Z/);

    expect((await fails('deliveries', 'show', 'dlv_nope')).code).toBe('not_found');
  });

  it('prints a delivery and the log in the very shapes the dashboard API answers with', async () => {
    // These deliveries are dated 2025: keep them past the log's retention.
    const service = await startServer({
      dataDir,
      port: 0,
      host: '127.0.0.1',
      log: () => {},
      requestLog: false,
      deliveryLogDays: 100_000,
    });
    try {
      const admin = async (route: string) =>
        (
          await fetch(`${service.url}${route}`, {
            headers: { authorization: `Bearer ${service.adminToken}` },
          })
        ).json() as Promise<{ data?: unknown }>;
      expect(await ok('deliveries', 'show', failedId)).toEqual(
        await admin(`/admin/webhooks/${webhookId}/deliveries/${failedId}`),
      );
      expect(await ok('deliveries', 'list', webhookId)).toEqual(
        (await admin(`/admin/deliveries?webhook_id=${webhookId}`)).data,
      );
    } finally {
      await service.stop();
    }
  });

  it('replay turns a failed delivery back to pending; one in flight is refused', async () => {
    const busy = await fails('deliveries', 'replay', inFlightId);
    expect(busy.code).toBe('conflict');
    expect(busy.message).toMatch(/being sent right now/);

    const before = Date.now();
    const replayed = await ok<Record<string, unknown>>('deliveries', 'replay', failedId);
    expect(replayed).toMatchObject({ delivery_id: failedId, state: 'pending', webhook_paused: false });
    expect(replayed.note).toMatch(/within about a second/);

    const repositories = openSqliteRepositories(dataDir);
    try {
      const d = (await repositories.deliveries.get(failedId))!;
      expect(d.state).toBe('pending');
      expect(d.replay).toBe(true);
      expect(d.nextAttemptAt).toBeLessThanOrEqual(Date.now());
      expect(d.nextAttemptAt).toBeGreaterThanOrEqual(before - 1);
      expect(d.attempts).toBe(1); // the attempt log is kept
    } finally {
      await repositories.close();
    }

    const out = await human('deliveries', 'replay', succeededId);
    expect(out).toMatch(/was succeeded\) is queued for a new attempt now/);
    expect(out).toMatch(/within about a second/);
    expect(
      (await ok<Record<string, unknown>[]>('deliveries', 'list', webhookId, '--state', 'pending')).map(
        (d) => d.delivery_id,
      ),
    ).toEqual([succeededId, failedId]);

    await ok('webhooks', 'pause', webhookId);
    expect(await human('deliveries', 'replay', failedId)).toMatch(
      /paused: it is sent once the webhook is resumed/,
    );

    expect((await fails('deliveries', 'replay', 'dlv_nope')).code).toBe('not_found');
  });
});
