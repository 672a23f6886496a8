/**
 * Google Sheets in the dashboard, in headless Chromium against a real server and the Sheets/Drive/OAuth fake:
 * log in through the page (the consent page opens in a new window; the fake approves a plain GET and redirects
 * to the server's loopback listener, which stores the tokens), add a seeded spreadsheet by its URL and see its
 * typed rows; axe-core on that state. As in every test the secrets are the 0600 file, so the login is kept
 * there encrypted with SHEETPORT_GOOGLE_PASSPHRASE, which the page must be told it may do.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../server/index.ts';
import { type GoogleAccount, startGoogleAccount } from '../helpers/google.ts';
import { launchChromium, seriousViolations } from './browser.ts';

const ROOT = new URL('../../', import.meta.url);
const SHOTS_TO_DOCS = process.env.SHEETPORT_UPDATE_SCREENSHOTS === '1';

let dir: string;
let google: GoogleAccount;
let service: RunningServer;
let browser: BrowserContext;
let profile: string;
let page: Page;

async function expectAccessible(): Promise<void> {
  const violations = await seriousViolations(page);
  expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
}

beforeAll(async () => {
  execFileSync(
    process.execPath,
    [
      new URL('node_modules/vite/bin/vite.js', ROOT).pathname,
      'build',
      '--config',
      'renderer/vite.config.ts',
      '--logLevel',
      'error',
    ],
    { cwd: ROOT.pathname, stdio: 'inherit' },
  );
  google = await startGoogleAccount();
  // The server reads its Google settings from the environment, as `sheetport serve` does.
  Object.assign(process.env, {
    SHEETPORT_GOOGLE_API_ROOT: google.fake.url,
    SHEETPORT_GOOGLE_CLIENT_ID: 'desktop-client',
    SHEETPORT_GOOGLE_CLIENT_SECRET: 'desktop-secret',
    SHEETPORT_GOOGLE_PASSPHRASE: 'a long passphrase',
  });
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-ui-google-'));
  service = await startServer({ dataDir: path.join(dir, 'data'), port: 0, host: '127.0.0.1', log: () => {} });
  ({ context: browser, profile } = await launchChromium());
  page = await browser.newPage();
  await page.goto(`${service.url}/ui/#token=${service.context.adminToken}`);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await google?.close();
  await rm(dir, { recursive: true, force: true });
  if (profile) await rm(profile, { recursive: true, force: true });
});

describe('Google Sheets in the dashboard', { timeout: 20_000 }, () => {
  it('says why a login cannot be kept without the opt-in where there is no OS keychain', async () => {
    await page.getByRole('heading', { level: 3, name: 'Google accounts' }).waitFor();
    await page.getByText('No Google account is connected yet.').waitFor();
    await page.getByRole('button', { name: 'Connect Google account' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /No OS keychain/ })
      .waitFor();
    await expectAccessible();
  });

  it('logs in through the consent page the page opens', async () => {
    await page.getByLabel('Keep the login in the secrets file, encrypted').check();
    const consent = browser.waitForEvent('page');
    await page.getByRole('button', { name: 'Connect Google account' }).click();
    const popup = await consent;
    // The fake approved at once and sent the browser to the server's loopback listener.
    await popup.getByText('SheetPort is signed in to Google').waitFor();
    await popup.close();
    await page.getByRole('status').filter({ hasText: 'Signed in as fake.user@example.com' }).waitFor();
    await page.getByRole('button', { name: 'Log out fake.user@example.com' }).waitFor();
  });

  it('adds a spreadsheet by its URL and previews its rows, typed', async () => {
    const id = await google.createSpreadsheet(
      'Trips',
      ['City', 'Days', 'Booked'],
      [
        ['Oslo', 3, true],
        ['Lima', 12, false],
      ],
    );
    await page.getByLabel(/^Id or URL/).fill(`https://docs.google.com/spreadsheets/d/${id}/edit#gid=0`);
    await page.getByRole('button', { name: 'Add spreadsheet' }).click();
    await page.getByRole('heading', { level: 3, name: 'Trips' }).waitFor();
    const table = page.getByRole('table', { name: /rows of Sheet1/ });
    await table.waitFor();
    const first = table.locator('tbody tr').first();
    expect(await first.locator('td').nth(1).textContent()).toBe('Oslo');
    expect(await first.locator('td').nth(2).getAttribute('class')).toBe('v-number');
    expect(await first.locator('td').nth(3).getAttribute('class')).toBe('v-boolean');
    expect(await table.locator('tbody tr').count()).toBe(2);
    await table.scrollIntoViewIfNeeded();
    const folder = SHOTS_TO_DOCS ? new URL('../../docs/screenshots/', import.meta.url).pathname : dir;
    await page.screenshot({ path: path.join(folder, 'sheets-google.png'), fullPage: false });
    await expectAccessible();
  });
});
