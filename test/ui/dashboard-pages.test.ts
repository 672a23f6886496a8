/**
 * What each dashboard page shows, in headless Chromium against a real server: the delivery log tells two webhooks
 * to one host apart and stacks into cards at 420 px; a webhook whose receiver answers 500 shows its failing
 * health; a key's connection restriction; the request log without the dashboard's own polling, and its filters;
 * the curl line's key variable is the one the README's export line sets; the tray menu only in the tray app's
 * window. Two real receivers on loopback (one answering 500), real HTTP for every request the pages show.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../server/index.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type DashboardSession, openDashboard } from './browser.ts';

let ui: DashboardSession;
let service: RunningServer;
let page: Page;
let receiver: http.Server;
let base: string;
const hits = { failing: 0, healthy: 0 };

// Two receivers behind one host and port, told apart only by the end of a long path.
const FAILING_PATH = '/hooks/sheetport/v2/notifications/orders-team';
const HEALTHY_PATH = '/hooks/sheetport/v2/notifications/stock-team';

async function admin<T = Record<string, unknown>>(
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${service.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      Authorization: `Bearer ${service.context.adminToken}`,
      ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function open(section: string, heading = section): Promise<void> {
  await page.getByRole('link', { name: section, exact: true }).click();
  await page.getByRole('heading', { level: 2, name: new RegExp(`^${heading}`) }).waitFor();
}

/** The page does not scroll sideways: nothing is wider than the window. */
async function pageWidth(): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(
    '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
  );
}

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const failing = req.url === FAILING_PATH;
      hits[failing ? 'failing' : 'healthy']++;
      res.statusCode = failing ? 500 : 200;
      res.end(failing ? 'orders receiver is down' : 'ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  ui = await openDashboard();
  ({ service, page } = ui);
}, 30_000);

afterAll(async () => {
  await ui?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('the dashboard pages', { timeout: 20_000 }, () => {
  let spreadsheetId: string;
  let userKey: string;
  let limitedKey: { id: string; key: string };
  let openKey: { id: string; key: string };
  const webhookIds = { failing: '', healthy: '' };

  it('names the key variable the README exports in the curl line, and the tray menu only in the tray app', async () => {
    const workbook = await writePeopleWorkbook(ui.dir);
    const connected = await admin<{ spreadsheet_id: string; user_key: string }>('/admin/connections', {
      method: 'POST',
      body: { location: workbook },
    });
    expect(connected.status).toBe(201);
    ({ spreadsheet_id: spreadsheetId, user_key: userKey } = connected.body);
    await page.getByRole('heading', { level: 2, name: 'Sheets' }).waitFor();
    await page.reload();
    const curl = await page.getByLabel('curl command for People', { exact: true }).inputValue();
    const used = /Bearer \$(\w+)/.exec(curl)?.[1];
    // The README's `export` line sets the variables its examples use; the dashboard's line must use one of them.
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const exportLine = readme.split('\n').find((l) => /^\s*export .*sp_/.test(l))!;
    const exported = [...exportLine.matchAll(/(\w+)=/g)].map((m) => m[1]);
    expect(exported).toContain(used);

    // A plain browser has no tray menu: the tunnel note names the command line only.
    const note = page.getByText(/^Public tunnel: off/);
    await note.waitFor();
    expect(await note.textContent()).not.toMatch(/tray/i);
    expect(await note.textContent()).toContain('sheetport serve --tunnel');
    // The tray app's window: its preload bridge is on the window (main/preload.cts; given here, as Electron would).
    await page.evaluate(
      'window.sheetport = { pickFile: async () => null, copyText: async () => true, openExternal: async () => true }',
    );
    await open('Keys', 'API keys');
    await open('Sheets');
    await expect
      .poll(() => note.textContent())
      .toMatch(/from the tray menu or with sheetport serve --tunnel/);
    await ui.expectAccessible();
  });

  it('shows which spreadsheets a key may reach: all, or only those it was limited to', async () => {
    const limited = await admin<{ id: string; key: string }>('/admin/keys', {
      method: 'POST',
      body: { name: 'people only', scope: 'read_write', connections: [spreadsheetId] },
    });
    const unlimited = await admin<{ id: string; key: string }>('/admin/keys', {
      method: 'POST',
      body: { name: 'everything', scope: 'read' },
    });
    limitedKey = limited.body;
    openKey = unlimited.body;
    await open('Keys', 'API keys');
    const limitedRow = page.getByRole('row', { name: /people only/ });
    await limitedRow.waitFor();
    await limitedRow.getByText('Only people.xlsx', { exact: true }).waitFor();
    await page
      .getByRole('row', { name: /everything/ })
      .getByText('All spreadsheets', { exact: true })
      .waitFor();
    await ui.shot('keys-reach');
    await ui.expectAccessible();
  });

  it('tells two webhooks to the same host apart in the delivery log', async () => {
    for (const [which, path] of [
      ['failing', FAILING_PATH],
      ['healthy', HEALTHY_PATH],
    ] as const) {
      const created = await admin<{ webhook_id: string }>('/admin/webhooks', {
        method: 'POST',
        body: { url: `${base}${path}`, spreadsheet_id: spreadsheetId, sheet_name: 'People' },
      });
      expect(created.status).toBe(201);
      webhookIds[which] = created.body.webhook_id;
    }
    const append = await fetch(`${service.url}/api/spreadsheets/${userKey}/People`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${limitedKey.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ Name: 'Dee', Age: 44 }),
    });
    expect(append.status).toBe(201);
    await expect.poll(() => hits.failing + hits.healthy, { timeout: 10_000 }).toBe(2);

    await open('Delivery log');
    await expect.poll(() => page.locator('td[data-label="Webhook"] [title]').count()).toBe(2);
    // With one delivery open beside the list (the tightest layout), every target shows whole: the list's table
    // fits its frame, and no target runs past it or is cut by its cell.
    await page
      .getByRole('button', { name: /show delivery/ })
      .first()
      .click();
    await page.getByRole('complementary').getByRole('heading', { level: 4, name: 'Attempts' }).waitFor();
    const shown = (await page.evaluate(`(() => {
      const table = document.querySelector('table');
      const frame = table.parentElement.getBoundingClientRect();
      return [...table.querySelectorAll('td[data-label="Webhook"] [title]')].map((el) => {
        const cell = el.closest('td');
        return {
          text: el.textContent,
          title: el.getAttribute('title'),
          clipped: table.parentElement.scrollWidth > table.parentElement.clientWidth ||
            el.getBoundingClientRect().right > frame.right || cell.scrollWidth > cell.clientWidth,
        };
      });
    })()`)) as { text: string; title: string; clipped: boolean }[];
    expect(shown).toHaveLength(2);
    for (const cell of shown) {
      expect(cell.clipped, cell.text).toBe(false);
      expect(cell.text).toContain(new URL(base).host);
    }
    expect(new Set(shown.map((c) => c.text)).size).toBe(2);
    expect(shown.map((c) => c.text).sort()).toEqual([
      expect.stringMatching(/orders-team$/),
      expect.stringMatching(/stock-team$/),
    ]);
    // The whole URL (and the webhook id) on hover.
    expect(shown.map((c) => c.title).sort()).toEqual([
      `${base}${FAILING_PATH} (${webhookIds.failing})`,
      `${base}${HEALTHY_PATH} (${webhookIds.healthy})`,
    ]);
    await ui.shot('deliveries-targets');
    await ui.expectAccessible();
  });

  it('stacks the delivery log into cards at 420 px, with no sideways scrolling', async () => {
    await page.setViewportSize({ width: 420, height: 900 });
    try {
      await page
        .getByRole('button', { name: /show delivery/ })
        .first()
        .click();
      await page.getByRole('complementary').getByRole('heading', { level: 4, name: 'Attempts' }).waitFor();
      const { scrollWidth, innerWidth } = await pageWidth();
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
      // Every table fits its region: nothing scrolls sideways inside the page either.
      const tables = await page
        .locator('table')
        .evaluateAll((els) => els.map((t) => ({ width: t.scrollWidth, room: t.parentElement!.clientWidth })));
      expect(tables.length).toBeGreaterThan(0);
      for (const t of tables) expect(t.width).toBeLessThanOrEqual(t.room);
      // Cards: each row a block with its cells one under another, each led by its column's name.
      const card = (await page.evaluate(`(() => {
        const row = document.querySelector('table tbody tr');
        const event = row.querySelector('td[data-label="Event"]');
        return { row: getComputedStyle(row).display, label: getComputedStyle(event, '::before').content };
      })()`)) as { row: string; label: string };
      expect(card).toEqual({ row: 'block', label: '"Event"' });
      // Still a table to assistive technology.
      await page.getByRole('table', { name: /deliveries, newest first/ }).waitFor();
      await page.getByRole('cell', { name: 'row.inserted' }).first().waitFor();
      await ui.shot('deliveries-narrow');
      await ui.expectAccessible();
      // The keys table stacks the same way.
      await open('Keys', 'API keys');
      await page.getByRole('row', { name: /people only/ }).waitFor();
      const keys = await pageWidth();
      expect(keys.scrollWidth).toBeLessThanOrEqual(keys.innerWidth);
      const keysTable = (await page.evaluate(
        `(() => { const t = document.querySelector('table'); return [t.scrollWidth, t.parentElement.clientWidth]; })()`,
      )) as [number, number];
      expect(keysTable[0]).toBeLessThanOrEqual(keysTable[1]);
      await open('Delivery log');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('shows a webhook whose receiver answers 500 as failing, with its last delivery and failures in a row', async () => {
    await open('Webhooks');
    const card = (id: string) => page.getByRole('article').filter({ hasText: id });
    const failing = card(webhookIds.failing);
    const healthy = card(webhookIds.healthy);
    await failing.getByText('last delivery failed', { exact: true }).waitFor();
    await failing.getByText(/Last delivery .* failed: HTTP 500 · 1 failure in a row/).waitFor();
    await healthy.getByText('healthy', { exact: true }).waitFor();
    await healthy.getByText(/Last delivery .* succeeded \(200\)/).waitFor();
    expect(await failing.locator('.badge.warning').count()).toBe(1);
    expect(await failing.locator('.badge.ok, .badge.active').count()).toBe(0);

    // Two more attempts that fail (replays, as a user would press Replay): the card turns red, live.
    const deliveries = await admin<{ data: { delivery_id: string }[] }>(
      `/admin/deliveries?webhook_id=${webhookIds.failing}`,
    );
    const deliveryId = deliveries.body.data[0]!.delivery_id;
    for (let attempts = 2; attempts <= 3; attempts++) {
      await expect
        .poll(
          async () =>
            (
              await admin(`/admin/webhooks/${webhookIds.failing}/deliveries/${deliveryId}/replay`, {
                method: 'POST',
              })
            ).status,
          { timeout: 10_000 },
        )
        .toBe(202);
      await expect.poll(() => hits.failing, { timeout: 10_000 }).toBe(attempts);
    }
    await failing.getByText('failing', { exact: true }).waitFor({ timeout: 10_000 });
    await failing.getByText(/3 failures in a row/).waitFor();
    expect(await failing.locator('.badge.failing').count()).toBe(1);
    // The JSON behind it, for the admin surface.
    const listed = await admin<{ data: { webhook_id: string; health: Record<string, unknown> }[] }>(
      '/admin/webhooks',
    );
    expect(listed.body.data.find((w) => w.webhook_id === webhookIds.failing)!.health).toMatchObject({
      state: 'failing',
      last_status: 500,
      last_error: 'HTTP 500',
      failures_in_a_row: 3,
    });
    expect(listed.body.data.find((w) => w.webhook_id === webhookIds.healthy)!.health).toMatchObject({
      state: 'ok',
      last_status: 200,
      failures_in_a_row: 0,
    });
    await ui.shot('webhooks-health');
    await ui.expectAccessible();
  });

  it("leaves the dashboard's own requests out of the request log by default, and filters by status, key and path", async () => {
    const sheetRows = `/api/spreadsheets/${userKey}/People`;
    const read = (key: string) =>
      fetch(`${service.url}${sheetRows}`, { headers: { Authorization: `Bearer ${key}` } });
    expect((await read(openKey.key)).status).toBe(200);
    expect((await read('sp_wrong')).status).toBe(401);
    const missing = await fetch(`${service.url}/v1/sheets/nope/rows`, {
      headers: { Authorization: `Bearer ${openKey.key}` },
    });
    expect(missing.status).toBe(404);

    await open('Requests');
    const table = page.getByRole('table', { name: /Recent requests/ });
    const column = (label: string) =>
      table.locator(`td[data-label="${label}"]`).evaluateAll((els) => els.map((e) => e.textContent ?? ''));
    const refreshUntil = async (ready: () => Promise<boolean>) =>
      expect
        .poll(
          async () => {
            await page.getByRole('button', { name: 'Refresh' }).click();
            return ready();
          },
          { timeout: 10_000 },
        )
        .toBe(true);

    // By default: only what clients asked, none of this page's own /admin and /ui requests.
    await refreshUntil(async () => (await column('Path')).includes('/v1/sheets/nope/rows'));
    const paths = await column('Path');
    expect(paths.some((p) => /^\/(admin|ui)\b/.test(p))).toBe(false);
    expect(paths).toContain(sheetRows);
    // The toggle shows them.
    await page.getByLabel(/Show the dashboard's own requests/).check();
    await refreshUntil(async () => (await column('Path')).some((p) => p.startsWith('/admin/')));
    await page.getByLabel(/Show the dashboard's own requests/).uncheck();

    // Status class.
    await page.getByLabel(/^Status/).selectOption('4xx');
    await refreshUntil(async () => {
      const statuses = await column('Status');
      return statuses.every((s) => s.startsWith('4')) && statuses.includes('401') && statuses.includes('404');
    });
    await page.getByLabel(/^Status/).selectOption('');
    // Key: the open key's two requests (its read and its 404), not the limited key's append or the wrong key.
    await page.getByLabel(/^Key/).selectOption(openKey.id);
    await refreshUntil(async () => {
      const keys = await column('Key');
      return keys.length === 2 && keys.every((k) => k === openKey.id);
    });
    await page.getByLabel(/^Key/).selectOption('');
    // Path.
    await page.getByLabel('Path contains').fill('/v1/');
    await page.getByRole('button', { name: 'Find' }).click();
    await refreshUntil(async () => {
      const shown = await column('Path');
      return shown.length === 1 && shown[0] === '/v1/sheets/nope/rows';
    });
    await ui.shot('requests-filtered');
    await ui.expectAccessible();
    // At 420 px the request log stacks too.
    await page.setViewportSize({ width: 420, height: 900 });
    try {
      const narrow = await pageWidth();
      expect(narrow.scrollWidth).toBeLessThanOrEqual(narrow.innerWidth);
      const frame = (await page.evaluate(
        `(() => { const t = document.querySelector('table'); return [t.scrollWidth, t.parentElement.clientWidth]; })()`,
      )) as [number, number];
      expect(frame[0]).toBeLessThanOrEqual(frame[1]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    await page.getByLabel('Path contains').fill('');
    await page.getByRole('button', { name: 'Find' }).click();
  });
});
