/**
 * The dashboard in headless Chromium against a real server (startServer on port 0 over a temp data dir): add a
 * workbook and preview its rows, create a key and use it, register a webhook, see a delivery fail against a
 * receiver answering 500, replay it once the receiver recovers, find a request by id; axe-core on every section
 * and a screenshot of each (into docs/screenshots/, shown in the README, when SHEETPORT_UPDATE_SCREENSHOTS=1).
 */

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../server/index.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { sqliteOf } from '../helpers/sqlite-of.ts';
import { type DashboardSession, openDashboard, signInUrl } from './browser.ts';

let ui: DashboardSession;
let dir: string;
let service: RunningServer;
let page: Page;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let receiverDown = true;
let webhookSecret = '';
const cspErrors: string[] = [];
const expectAccessible = () => ui.expectAccessible();
const shot = (name: string) => ui.shot(name);

/** Another program saves the workbook: Debian's openpyxl (/usr/bin/python3) sets one cell and writes the file. */
async function saveOutside(file: string, sheet: string, cell: string, value: string): Promise<void> {
  const script =
    'import sys, openpyxl\nwb = openpyxl.load_workbook(sys.argv[1])\nwb[sys.argv[2]][sys.argv[3]] = sys.argv[4]\nwb.save(sys.argv[1])';
  await promisify(execFile)('/usr/bin/python3', ['-c', script, file, sheet, cell, value]);
}

async function open(section: string, heading = section): Promise<void> {
  await page.getByRole('link', { name: section, exact: true }).click();
  await page.getByRole('heading', { level: 2, name: new RegExp(`^${heading}`) }).waitFor();
}

beforeAll(async () => {
  receiver = await startReceiver(
    () => webhookSecret,
    (_r, res) => {
      res.statusCode = receiverDown ? 500 : 200;
      res.end(receiverDown ? 'receiver is down' : 'ok');
    },
  );
  ui = await openDashboard((page) =>
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    }),
  );
  ({ dir, service, page } = ui);
}, 30_000);

afterAll(async () => {
  await ui?.close();
  await receiver?.close();
});

describe('the dashboard at /ui', { timeout: 15_000 }, () => {
  let workbook: string;
  let sheetId: string;
  let userKey: string;
  let apiKey: string;

  it('takes the sign-in code from the fragment and drops it from the address bar', async () => {
    await page.getByRole('heading', { level: 2, name: 'Sheets' }).waitFor();
    expect(page.url()).not.toContain('code=');
    await page.getByText('No spreadsheets yet').waitFor();
    await expectAccessible();
  });

  it('adds a local workbook by path and previews its first rows, typed', async () => {
    workbook = await writePeopleWorkbook(dir);
    await page.getByLabel(/Path of a workbook/).fill(workbook);
    await page.getByRole('button', { name: 'Add workbook' }).click();
    await page.getByRole('heading', { level: 3, name: 'people.xlsx' }).waitFor();
    const table = page.getByRole('table', { name: /rows of People/ });
    await table.waitFor();
    await expect.poll(() => table.locator('tbody tr').count()).toBeGreaterThan(2);
    const first = table.locator('tbody tr').first();
    expect(await first.locator('td').nth(1).textContent()).toBe('Ann');
    // Typed: the age is a number cell, right-aligned as numbers are.
    expect(await first.locator('td').nth(2).getAttribute('class')).toBe('v-number');
    const endpoint = await page.getByLabel('endpoint URL of People', { exact: true }).inputValue();
    expect(endpoint).toMatch(/\/v1\/sheets\/.+\/rows$/);
    sheetId = decodeURIComponent(endpoint.split('/v1/sheets/')[1]!.replace(/\/rows$/, ''));
    userKey = (await service.context.connections.list())[0]!.userKey;
    await shot('sheets');
    await expectAccessible();

    // The text the sheet shows: the balance with its currency format, then back to typed values.
    const show = page.getByLabel('Show');
    await show.selectOption('formatted');
    await page.getByRole('table', { name: /rows of People \(as the sheet shows them\)/ }).waitFor();
    await first.getByRole('cell', { name: '$1,000.00' }).waitFor();
    await show.selectOption('typed');
    await page.getByRole('table', { name: /rows of People \(typed values\)/ }).waitFor();
  });

  it('reads the preview again when the workbook is saved by another program', async () => {
    const firstName = page
      .getByRole('table', { name: /rows of People/ })
      .locator('tbody tr')
      .first()
      .locator('td')
      .nth(1);
    // A save is a change once the service has seen the workbook as it was (its first look stores the baseline;
    // the connection follower takes that look within 2 s of the connect).
    const spreadsheetId = (await service.context.connections.list())[0]!.spreadsheetId;
    const baselines = sqliteOf(service.context)
      .prepare<[string], number>('SELECT COUNT(*) FROM tab_baselines WHERE spreadsheet_id = ?')
      .pluck();
    await expect.poll(() => baselines.get(spreadsheetId), { timeout: 5000 }).toBeGreaterThan(0);
    await saveOutside(workbook, 'People', 'A2', 'Anna');
    // The follower records the save in the change log; the stream's `sheets` event makes the preview read again.
    await expect.poll(() => firstName.textContent(), { timeout: 10_000 }).toBe('Anna');
  });

  it('queries a tab: rows by where, the error at its position, a group-by drawn as bars, the /v1 URL of each', async () => {
    const bar = page.getByRole('region', { name: 'query People' });
    await bar.getByLabel('Where').fill("Age >= 31 and Name != 'item2'");
    await bar.getByLabel('Sort').fill('-Age');
    await bar.getByRole('button', { name: 'Run query' }).click();
    const result = bar.getByRole('table', { name: '2 of 2 matching rows' });
    await result.waitFor();
    const names = await result.locator('tbody tr td:first-child').allTextContents();
    expect(names).toEqual(['item10', 'Anna']);
    const where = encodeURIComponent("Age >= 31 and Name != 'item2'");
    expect(await bar.getByLabel('query URL', { exact: true }).inputValue()).toBe(
      `${service.url}/v1/sheets/${encodeURIComponent(sheetId)}/rows?where=${where}&sort=-Age&limit=50`,
    );

    // A where that ends too soon: the server's error, and a caret under where it stopped.
    await bar.getByLabel('Where').fill('Age >');
    await bar.getByRole('button', { name: 'Run query' }).click();
    await bar.getByRole('alert').filter({ hasText: 'invalid_parameter' }).waitFor();
    expect(await bar.locator('pre.caret').textContent()).toBe('Age >\n     ^');

    await bar.getByLabel('Where').fill('Age is not null');
    await bar.getByLabel('Sort').fill('');
    await bar.getByLabel('Group by').fill('Age');
    await bar.getByLabel('Metrics').fill('count');
    await bar.getByRole('button', { name: 'Run query' }).click();
    const chart = bar.getByRole('img', { name: 'count per group' });
    await chart.waitFor();
    expect(await chart.locator('rect').count()).toBe(3); // 25, 31 and 40
    expect(await bar.getByLabel('query URL', { exact: true }).inputValue()).toContain(
      '/aggregate?group_by=Age&metrics=count',
    );
    await shot('query');
    await expectAccessible();
    await bar.getByRole('button', { name: 'Clear' }).click();
  });

  it('creates a key shown once, and the key works with fetch', async () => {
    await open('Keys', 'API keys');
    await page.getByLabel('Name', { exact: true }).fill('ui test');
    await page.getByLabel('Scope').selectOption('read_write');
    await page.getByRole('button', { name: 'Create key' }).click();
    const field = page.getByLabel('new API key', { exact: true });
    await field.waitFor();
    apiKey = await field.inputValue();
    expect(apiKey).toMatch(/^sp_/);
    const res = await fetch(`${service.url}/v1/sheets/${encodeURIComponent(sheetId)}/rows`, {
      headers: { Authorization: `Bearer ${apiKey}` },
    });
    expect(res.status).toBe(200);
    await page.getByRole('row', { name: /ui test/ }).waitFor();
    await shot('keys');
    await expectAccessible();
  });

  it('registers a webhook, whose first delivery fails against a receiver answering 500', async () => {
    await open('Webhooks');
    await page.getByLabel('Receiver URL').fill(receiver.url);
    // A condition from the form: only people over 40 (Dee, appended below, is 44).
    await page.getByLabel('Only rows where (optional)').fill('Age > 40');
    await page.getByRole('button', { name: 'Register webhook' }).click();
    webhookSecret = await page.getByLabel('webhook signing secret', { exact: true }).inputValue();
    expect(webhookSecret.length).toBeGreaterThan(10);
    await page.getByRole('heading', { level: 3, name: receiver.url }).waitFor();
    await page.getByText('Only rows where Age > 40').waitFor();
    await shot('webhooks');
    await expectAccessible();

    const append = await fetch(`${service.url}/api/spreadsheets/${userKey}/People`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ Name: 'Dee', Age: 44 }),
    });
    expect(append.status).toBe(201);
    await receiver.waitFor(1);
  });

  it('shows the failed attempt live in the delivery log and replays it after the receiver recovers', async () => {
    await open('Delivery log');
    await page
      .getByRole('status')
      .filter({ hasText: /^live$/ })
      .waitFor();
    const row = page.getByRole('button', { name: /show delivery/ }).first();
    await row.click();
    const detail = page.getByRole('complementary');
    await detail.getByRole('cell', { name: '500', exact: true }).waitFor();
    await detail.getByText('receiver is down').waitFor();
    await shot('deliveries');
    await expectAccessible();

    receiverDown = false;
    await detail.getByRole('button', { name: 'Replay' }).click();
    await receiver.waitFor(2);
    // The stream tells the page; the detail shows the delivery succeeded without a reload.
    await detail.locator('.badge.succeeded').waitFor({ timeout: 10_000 });
    expect(receiver.received[1]!.signatureOk).toBe(true);
    // The headers the replay sent, as the receiver got them: its signature shows in the inspector.
    await detail.getByRole('heading', { level: 4, name: 'Headers sent by attempt 2' }).waitFor();
    const signature = String(receiver.received[1]!.headers['webhook-signature']);
    await detail.getByText(signature, { exact: true }).waitFor();
  });

  it('finds a request in the request log by its request id', async () => {
    const res = await fetch(`${service.url}/v1/sheets/${encodeURIComponent(sheetId)}/rows`, {
      headers: { Authorization: 'Bearer sp_wrong' },
    });
    expect(res.status).toBe(401);
    const requestId = res.headers.get('x-request-id')!;
    await open('Requests');
    await page.getByLabel(/Request id/).fill(requestId);
    await page.getByRole('button', { name: 'Find' }).click();
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return page.getByRole('cell', { name: requestId }).count();
        },
        { timeout: 5000 },
      )
      .toBe(1);
    expect(
      await page
        .getByRole('row', { name: new RegExp(requestId) })
        // Exact: the request id or a time in the same row may hold the digits 401 too.
        .getByText('401', { exact: true })
        .count(),
    ).toBe(1);
    await page.getByLabel(/Request id/).fill('');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('table', { name: /Recent requests/ }).waitFor();
    await shot('requests');
    await expectAccessible();
  });

  it('is usable from the keyboard: skip link, section links, focus on the new section', async () => {
    await page.reload();
    await page.getByRole('heading', { level: 2 }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Keys');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'API keys' }).waitFor();
    await expect.poll(() => page.evaluate('document.activeElement?.id'), { timeout: 2000 }).toBe('main');
    // The token survived the reload in sessionStorage, and never went back into the URL.
    expect(page.url()).not.toContain('token=');
  });

  it('works in a narrow window, and the CSP refused nothing the page needs', async () => {
    await page.setViewportSize({ width: 420, height: 800 });
    await open('Sheets');
    await page.getByRole('heading', { level: 3, name: 'people.xlsx' }).waitFor();
    await shot('sheets-narrow');
    await expectAccessible();
    expect(cspErrors).toEqual([]);
  });

  it('offers Choose file… only where the desktop bridge can pick a file, and fills the path with it', async () => {
    await open('Sheets');
    expect(await page.getByRole('button', { name: 'Choose file…' }).count()).toBe(0);
    const desktopPage = await ui.browser.newPage();
    // What main/preload.cts puts on the window; the system dialog itself needs Electron, so its answer is given.
    await desktopPage.addInitScript(
      `window.sheetport = { pickFile: async () => ${JSON.stringify(workbook)} };`,
    );
    await desktopPage.goto(signInUrl(service));
    await desktopPage.getByRole('button', { name: 'Choose file…' }).click();
    await expect.poll(() => desktopPage.getByLabel(/Path of a workbook/).inputValue()).toBe(workbook);
    await desktopPage.close();
  });
});
