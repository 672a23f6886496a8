/**
 * Google Sheets in the dashboard, in headless Chromium against a real server and the Sheets/Drive/OAuth fake:
 * log in through the page (the consent page opens in a new window; the fake approves a plain GET and redirects
 * to the server's loopback listener, which stores the tokens), add a seeded spreadsheet by its URL and see its
 * typed rows; axe-core on that state. A cancelled consent page and a spreadsheet the account may not open show the
 * server's message, which says what to do. As in every test the secrets are the 0600 file, so the login is kept
 * there encrypted with SHEETPORT_GOOGLE_PASSPHRASE, which the page must be told it may do.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleConfig } from '../helpers/config.ts';
import { desktopLogin, type GoogleAccount, startGoogleAccount } from '../helpers/google.ts';
import { type DashboardSession, openDashboard } from './browser.ts';

let google: GoogleAccount;
let ui: DashboardSession;
let browser: BrowserContext;
let page: Page;
const expectAccessible = () => ui.expectAccessible();

beforeAll(async () => {
  google = await startGoogleAccount();
  // The server's Google settings, as `sheetport serve` reads them from SHEETPORT_GOOGLE_*.
  ui = await openDashboard(undefined, googleConfig(desktopLogin(google.fake.url)));
  ({ browser, page } = ui);
}, 60_000);

afterAll(async () => {
  await ui?.close();
  await google?.close();
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

  it('says the sign-in was cancelled, and to log in again, when the consent page is cancelled', async () => {
    await page.getByLabel('Keep the login in the secrets file, encrypted').check();
    google.fake.oauth.refuseNextConsent();
    const consent = browser.waitForEvent('page');
    await page.getByRole('button', { name: 'Connect Google account' }).click();
    const popup = await consent;
    await popup.getByText('Sign-in was not completed').waitFor();
    await popup.close();
    await page
      .getByRole('alert')
      .filter({ hasText: 'The Google sign-in was cancelled in the browser' })
      .filter({ hasText: 'run `sheetport login google` again and choose Allow' })
      .waitFor();
    await page.getByText('No Google account is connected yet.').waitFor();
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
    await ui.shot('sheets-google');
    await expectAccessible();
  });

  it('says to share a spreadsheet the account may not open, or to log in with another account', async () => {
    const id = await google.createSpreadsheet('Payroll', ['Name'], [['Ann']]);
    google.fake.store.denied.add(id);
    await page.getByLabel(/^Id or URL/).fill(id);
    await page.getByRole('button', { name: 'Add spreadsheet' }).click();
    await page
      .getByRole('alert')
      .filter({
        hasText: /The signed-in Google account may not open this spreadsheet .*share it with that account/,
      })
      .waitFor();
    await expect(page.getByRole('heading', { level: 3, name: 'Payroll' }).count()).resolves.toBe(0);
    await expectAccessible();
  });
});
