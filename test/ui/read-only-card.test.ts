/**
 * The Sheets page says when a workbook's owner made it read-only (SheetPort refuses writes to it): in headless
 * Chromium against a real server, a 0444 workbook added by path shows the badge on its card; made writable again,
 * the card drops it on the next look.
 */
import { chmod } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type DashboardSession, openDashboard } from './browser.ts';

let ui: DashboardSession;
let page: Page;

beforeAll(async () => {
  ui = await openDashboard();
  page = ui.page;
}, 60_000);

afterAll(async () => {
  await ui?.close();
});

describe('a read-only workbook on the Sheets page', { timeout: 20_000 }, () => {
  it('is marked on its card as refusing writes', async () => {
    await page.getByRole('heading', { level: 2, name: 'Sheets' }).waitFor();
    const workbook = await writePeopleWorkbook(ui.dir);
    await chmod(workbook, 0o444);
    await page.getByLabel(/Path of a workbook/).fill(workbook);
    await page.getByRole('button', { name: 'Add workbook' }).click();
    const card = page.getByRole('article', { name: 'people.xlsx' });
    await card.waitFor();
    await card.getByText('read-only: writes refused').waitFor();
    await ui.expectAccessible();

    await chmod(workbook, 0o644);
    await page.reload();
    await page.getByRole('article', { name: 'people.xlsx' }).getByRole('table').first().waitFor();
    expect(await page.getByText('read-only: writes refused').count()).toBe(0);
  });
});
