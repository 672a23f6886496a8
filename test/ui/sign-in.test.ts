/**
 * Signing in to the dashboard in headless Chromium (a real server over a temp data dir, its clock injected so a
 * code expires without waiting a minute): a one-use sign-in code in the URL signs in once, reloading keeps the
 * session (sessionStorage) without the code, the same code again or an expired one signs nobody in, and after
 * the browser closes its profile (History, Sessions, everything in --user-data-dir) holds neither the admin
 * token nor a code that still signs in. A rotation of the admin token ends an open page's session.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_CODE_TTL_MS } from '../../server/http/admin-access.ts';
import { type Harness, startHarness } from '../helpers/harness.ts';
import { buildDashboard, launchChromium, seriousViolations } from './browser.ts';

let h: Harness;
let now = Date.UTC(2026, 0, 5, 12, 0, 0);
let browser: BrowserContext;
let profile: string;
const profiles: string[] = [];
/** Every admin token the server had during the test (a rotation makes a new one). */
const adminTokens: string[] = [];

beforeAll(async () => {
  buildDashboard();
  h = await startHarness({ clock: () => new Date(now) });
  adminTokens.push(h.context.adminToken);
  ({ context: browser, profile } = await launchChromium());
  profiles.push(profile);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
  for (const p of profiles) await rm(p, { recursive: true, force: true });
});

/** A code as `sheetport dashboard` gets one: asked of the server over loopback with the admin token. */
async function mintCode(): Promise<string> {
  const res = await h.fetch('/admin/sign-in-codes', { method: 'POST', auth: h.context.adminToken });
  expect(res.status).toBe(201);
  return ((await res.json()) as { code: string }).code;
}

const signInUrl = (code: string) => `${h.url}/ui/#code=${encodeURIComponent(code)}`;
const sheetsHeading = (page: Page) => page.getByRole('heading', { level: 2, name: 'Sheets' });
const storedValues = (page: Page) => page.evaluate(() => Object.values(sessionStorage));

async function expectSignedOut(page: Page, notice: RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'SheetPort dashboard' }).waitFor();
  await page.getByRole('alert').filter({ hasText: notice }).waitFor();
  expect(await sheetsHeading(page).count()).toBe(0);
  expect(await storedValues(page)).toEqual([]);
}

/** Every file under a folder, as text (binary files too: a URL or token in them is plain ASCII). */
async function filesUnder(folder: string): Promise<{ file: string; text: string }[]> {
  const found: { file: string; text: string }[] = [];
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if ((await stat(file)).size > 64 * 1024 * 1024) continue;
    found.push({ file, text: (await readFile(file)).toString('latin1') });
  }
  return found;
}

describe('the dashboard sign-in link', { timeout: 30_000 }, () => {
  let usedCode = '';

  it('signs in once with its code, drops it from the address bar, and a reload keeps the session', async () => {
    usedCode = await mintCode();
    const page = await browser.newPage();
    await page.goto(signInUrl(usedCode));
    await sheetsHeading(page).waitFor();
    expect(page.url()).not.toContain(usedCode);
    const stored = await storedValues(page);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatch(/^sps_/);
    expect(stored).not.toContain(h.context.adminToken);

    await page.reload();
    await sheetsHeading(page).waitFor();
    expect(page.url()).not.toContain('code=');
    expect(await storedValues(page)).toEqual(stored);
    await page.close();
  });

  it('signs nobody in when the same code is used again', async () => {
    const page = await browser.newPage();
    await page.goto(signInUrl(usedCode));
    await expectSignedOut(page, /This sign-in link has expired or was used; open the dashboard again/);
    expect(page.url()).not.toContain(usedCode);
    const violations = await seriousViolations(page);
    expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
    await page.close();
  });

  it('signs nobody in once the code has expired', async () => {
    const code = await mintCode();
    now += SIGN_IN_CODE_TTL_MS;
    const page = await browser.newPage();
    await page.goto(signInUrl(code));
    await expectSignedOut(page, /This sign-in link has expired or was used/);
    await page.close();
  });

  it('trades a pasted admin token for a session and keeps only the session', async () => {
    const page = await browser.newPage();
    await page.goto(`${h.url}/ui/`);
    await page.getByLabel('Admin token').fill(h.context.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await sheetsHeading(page).waitFor();
    const stored = await storedValues(page);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatch(/^sps_/);
    await page.close();
  });

  it('leaves neither the admin token nor a live code in the browser profile', async () => {
    // Signed in and left open, as a user leaves it, when the browser closes.
    const page = await browser.newPage();
    await page.goto(signInUrl(await mintCode()));
    await sheetsHeading(page).waitFor();
    await browser.close();

    const files = await filesUnder(profile);
    const names = files.map((f) => path.relative(profile, f.file));
    expect(names).toContain(path.join('Default', 'History'));
    expect(names.some((n) => n.startsWith(path.join('Default', 'Sessions')))).toBe(true);
    for (const { file, text } of files) {
      for (const token of adminTokens) expect(text.includes(token), file).toBe(false);
    }
    // The sign-in URLs are in the history (a browser keeps what it visited), but their codes are spent.
    const codes = new Set(files.flatMap(({ text }) => text.match(/spc_[A-Za-z0-9_-]{32}/g) ?? []));
    expect(codes.size).toBeGreaterThan(0);
    for (const code of codes) {
      const res = await h.fetch('/admin/session', {
        method: 'POST',
        auth: null,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code }),
      });
      expect(res.status, code).toBe(401);
    }
  });

  it('sends a page whose session a rotation ended back to the sign-in screen, saying why', async () => {
    ({ context: browser, profile } = await launchChromium());
    profiles.push(profile);
    const page = await browser.newPage();
    await page.goto(signInUrl(await mintCode()));
    await sheetsHeading(page).waitFor();
    const rotated = await h.fetch('/admin/admin-token/rotate', {
      method: 'POST',
      auth: h.context.adminToken,
    });
    expect(rotated.status).toBe(200);
    adminTokens.push(h.context.adminToken);
    // The page may notice on its own first (the rotation ends its event stream, and the reconnect is refused),
    // and then the Keys link is gone; otherwise the next request it makes finds out.
    await page
      .getByRole('link', { name: 'Keys', exact: true })
      .click({ timeout: 2000 })
      .catch(() => {});
    await expectSignedOut(page, /Your session has ended \(the admin token was rotated/);
  });
});
