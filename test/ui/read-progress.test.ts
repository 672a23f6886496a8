/**
 * The Sheets page shows how far a large workbook's first read has come: in headless Chromium against a real
 * server, a workbook of millions of rows added by path shows a progress bar on its card while it is read, with
 * the share the server reports (`reading` of GET /admin/connections), and the bar gives way to its tabs once the
 * read ends.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeZipBomb } from '../helpers/zip-bomb.ts';
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

describe('a large workbook on the Sheets page', { timeout: 90_000 }, () => {
  it('shows its read coming, then its tabs', async () => {
    await page.getByRole('heading', { level: 2, name: 'Sheets' }).waitFor();
    // Millions of numbered rows: seconds to read. At 150 MB the bar showed for about 0.3 s on a fast machine, less
    // than the page's one poll a second, and the test sometimes never saw it; at 300 MB it shows for about 2.7 s.
    const workbook = path.join(ui.dir, 'big.xlsx');
    await writeZipBomb(workbook, { sheetMb: 300, numberedRows: true, emptyCells: true });
    // Adding a workbook reads it once and keeps that read (api.md, "Reads kept for the next start"), so the card's
    // own first read would end at once. Here the data dir cannot keep reads (a file stands where their folder
    // goes): the card's read parses the file, as a start does after the file changed while the service was off.
    await writeFile(path.join(ui.dir, 'data', 'reads'), 'not a folder');
    await page.getByLabel(/Path of a workbook/).fill(workbook);
    await page.getByRole('button', { name: 'Add workbook' }).click();
    const card = page.getByRole('article', { name: 'big.xlsx' });
    const bar = card.getByRole('progressbar');
    await bar.waitFor({ timeout: 30_000 });
    const shown = Number(await bar.getAttribute('value'));
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(100);
    await expect
      .poll(async () => card.getByText(/^Reading the spreadsheet: \d+%$/).count(), { timeout: 5_000 })
      .toBe(1);
    await ui.expectAccessible();
    // The bar moves while the read goes on, then gives way to what the read found.
    await expect
      .poll(async () => ((await bar.count()) ? Number(await bar.getAttribute('value')) : 100), {
        timeout: 60_000,
        interval: 200,
      })
      .toBeGreaterThan(shown);
    await bar.waitFor({ state: 'detached', timeout: 60_000 });
    // Its one tab (numbered rows of empty cells: no rows to show) is there to choose.
    await card
      .getByRole('group', { name: 'Tabs of big.xlsx' })
      .getByText(/^Bomb/)
      .waitFor({ timeout: 10_000 });
  });
});
