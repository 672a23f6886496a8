/**
 * The service's one source of "a tab changed" (server/changes/tab-changes.ts), heard by its two listeners, an MCP
 * resource subscription and the dashboard's event stream (`/admin/events`, its `sheets` events), for a change
 * recorded each way: a write through the API; a change another process recorded in the shared SQLite data dir
 * (a real `sheetport webhooks create`, which records an outside edit first), heard while the service's own
 * follower is off, so only the database's version can have told it; and, in team mode, a write on another
 * instance. Real servers, a real CLI process, real PostgreSQL. (An outside save seen by the follower is heard by
 * both too: test/mcp/resources.test.ts and test/ui/dashboard.test.ts.)
 */
import http from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import ExcelJS from 'exceljs';
import { afterEach, describe, expect, it } from 'vitest';
import { TabChanges } from '../../server/changes/tab-changes.ts';
import { cliJson } from '../helpers/cli.ts';
import { type Harness, startHarness } from '../helpers/harness.ts';
import { type AnyJson, callOk, mcpOverHttp } from '../helpers/mcp-client.ts';
import { writeOrdersWorkbook } from '../helpers/mcp-workbook.ts';
import { startReceiver } from '../helpers/receiver.ts';

const open: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/** The dashboard's event stream, as the page opens it: its `sheets` events' changed sheet ids, as they come. */
async function dashboardStream(h: Harness): Promise<{ sheetIds: string[] }> {
  const issued = await fetch(`${h.url}/admin/events/token`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${h.context.adminToken}` },
  });
  const { stream_token } = (await issued.json()) as { stream_token: string };
  const seen = { sheetIds: [] as string[] };
  await new Promise<void>((resolve, reject) => {
    const req = http.get(`${h.url}/admin/events?stream_token=${stream_token}`, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        const events = text.split('\n\n');
        text = events.pop() ?? '';
        for (const event of events) {
          const data = /^event: sheets\ndata: (.*)$/m.exec(event)?.[1];
          if (data) seen.sheetIds.push(...JSON.parse(data).changed.map((c: AnyJson) => c.sheet_id));
        }
      });
      resolve();
    });
    req.on('error', reject);
    open.push({ close: () => void req.destroy() });
  });
  return seen;
}

/** An MCP session subscribed to one tab: the `resources/updated` notifications it receives. */
async function subscribed(h: Harness, sheetId: string): Promise<{ updates: string[] }> {
  const client: Client = await mcpOverHttp(h.url, h.key);
  open.push(client);
  const heard = { updates: [] as string[] };
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    heard.updates.push(n.params.uri);
  });
  await client.subscribeResource({ uri: uriOf(sheetId) });
  return heard;
}

const uriOf = (sheetId: string) => `sheetport://sheets/${encodeURIComponent(sheetId)}`;

async function ordersSheetId(h: Harness): Promise<string> {
  const client = await mcpOverHttp(h.url, h.key);
  try {
    const listed = await callOk(client, 'list_sheets');
    return listed.spreadsheets[0].sheets.find((s: AnyJson) => s.name === 'Orders').sheet_id;
  } finally {
    await client.close();
  }
}

/** Both listeners hear of `sheetId` within 3 s (a generous bound: the path itself takes milliseconds). */
async function bothHear(dashboard: { sheetIds: string[] }, mcp: { updates: string[] }, sheetId: string) {
  await expect.poll(() => dashboard.sheetIds, { timeout: 3000 }).toContain(sheetId);
  await expect.poll(() => mcp.updates, { timeout: 3000 }).toContain(uriOf(sheetId));
}

const appendRow = (h: Harness, sheetId: string, customer: string) =>
  h.fetch(`/v1/sheets/${sheetId}/rows`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Customer: customer }),
  });

describe('a changed tab is heard by MCP subscriptions and the dashboard stream', { timeout: 60_000 }, () => {
  it('when written through the API', async () => {
    const h = await startHarness();
    open.push(h);
    await h.connectBook(await writeOrdersWorkbook(h.dir));
    const sheetId = await ordersSheetId(h);
    const dashboard = await dashboardStream(h);
    const mcp = await subscribed(h, sheetId);
    expect((await appendRow(h, sheetId, 'From the API')).status).toBe(201);
    await bothHear(dashboard, mcp, sheetId);
  });

  it('when another process recorded it in the shared data dir, the follower being off', async () => {
    const h = await startHarness();
    open.push(h);
    const file = await writeOrdersWorkbook(h.dir);
    const { connection } = await h.connectBook(file);
    const sheetId = await ordersSheetId(h);
    // Recorded once here (its baseline), as a running service's follower does: the CLI's look is then a change.
    await h.context.spreadsheets.of(connection).observe();
    // The worker alone: its look at SQLite's data_version is the one way this service hears another process.
    h.context.worker.start();
    const dashboard = await dashboardStream(h);
    const mcp = await subscribed(h, sheetId);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    wb.getWorksheet('Orders')!.getCell('E2').value = 'edited while the service looked away';
    await wb.xlsx.writeFile(file);
    const receiver = await startReceiver(() => 'unused');
    open.push(receiver);
    // `webhooks create` records the spreadsheet as it is (the edit above) before registering the webhook.
    await cliJson(
      [
        ...['webhooks', 'create', '--url', receiver.url],
        ...['--spreadsheet', connection.spreadsheetId, '--sheet', 'Orders'],
      ],
      { dataDir: h.context.dataDir },
    );
    await bothHear(dashboard, mcp, sheetId);
    const feed = await (
      await h.fetch(`/v1/sheets/${sheetId}/changes?updated_since=1970-01-01T00:00:00Z`)
    ).json();
    expect(feed.data.map((c: AnyJson) => c.values?.Notes)).toContain('edited while the service looked away');
  });

  it('in team mode, when another instance wrote it', async () => {
    const a = await startHarness({ store: 'postgres' });
    open.push(a);
    const b = await startHarness({ store: 'postgres', databaseUrl: a.databaseUrl! });
    open.push(b);
    await a.connectBook(await writeOrdersWorkbook(a.dir));
    const sheetId = await ordersSheetId(a);
    const dashboard = await dashboardStream(a);
    const mcp = await subscribed(a, sheetId);
    expect((await appendRow(b, sheetId, 'Written on B')).status).toBe(201);
    await bothHear(dashboard, mcp, sheetId);
  });
});

describe('TabChanges', () => {
  /** The change log's two reads, over a counter standing in for its end (the service's are the store's). */
  function countedLog() {
    const log = { head: 0, reads: 0, failNext: false, tabs: [{ spreadsheetId: 'wb_1', sourceSheetId: '1' }] };
    return {
      log,
      changeLog: {
        async head() {
          log.reads++;
          if (log.failNext) {
            log.failNext = false;
            throw new Error('database unreadable');
          }
          return log.head;
        },
        async tabsAfter() {
          return log.tabs;
        },
      },
    };
  }

  it('reads nothing while nobody listens, nor for a spreadsheet nobody listens to', async () => {
    const { log, changeLog } = countedLog();
    const changes = new TabChanges({ changeLog, log: () => {} });
    changes.recorded('wb_1');
    changes.recorded(null);
    await changes.current();
    expect(log.reads).toBe(0);
    const heard: string[] = [];
    const stop = changes.listenTab('wb_1', '1', (tab) => heard.push(tab.sourceSheetId));
    await changes.current();
    expect(log.reads).toBe(1); // where the log ends now: only later changes are told
    changes.recorded('wb_2');
    await changes.current();
    expect(log.reads).toBe(1);
    log.head = 5;
    changes.recorded('wb_1');
    await changes.current();
    expect(heard).toEqual(['1']);
    stop();
    changes.recorded('wb_1');
    await changes.current();
    expect(log.reads).toBe(2);
  });

  it('tries a failed look again by itself, so a change recorded meanwhile is still told', async () => {
    const { log, changeLog } = countedLog();
    const changes = new TabChanges({ changeLog, log: () => {}, retryMs: 20 });
    const heard: number[] = [];
    changes.listen((seen) => heard.push(seen.head));
    await changes.current();
    log.head = 3;
    log.failNext = true;
    changes.recorded(null);
    await expect.poll(() => heard, { timeout: 2000 }).toEqual([3]);
    changes.close();
  });
});
