/**
 * Headless Debian Chromium through playwright-core, with a fresh profile, and the axe-core check the dashboard
 * tests run on every section. Axe is evaluated through the DevTools protocol (not a script tag), so the page's
 * CSP stays exactly as served.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { SheetPortConfig } from '../../server/config.ts';
import { type RunningServer, startServer } from '../../server/index.ts';
import { testConfig } from '../helpers/config.ts';

export const CHROMIUM = '/usr/bin/chromium';

export async function launchChromium(): Promise<{ context: BrowserContext; profile: string }> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'sheetport-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return { context, profile };
}

const AXE_SOURCE = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Serious and critical axe-core violations on the page as it is now (WCAG 2.x A and AA rules). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(`${AXE_SOURCE}\n;0`);
  const violations = (await page.evaluate(`axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
  }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target })) })))`)) as AxeViolation[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** A real server over a temp data dir, its dashboard built from the current sources and open, signed in. */
export interface DashboardSession {
  dir: string;
  service: RunningServer;
  browser: BrowserContext;
  page: Page;
  /** The page has no serious or critical axe-core violation as it is now. */
  expectAccessible(): Promise<void>;
  /** A screenshot: into docs/screenshots/ with SHEETPORT_UPDATE_SCREENSHOTS=1, else into the temp dir. */
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

const ROOT = new URL('../../', import.meta.url);
// The screenshots shown in the README are refreshed with SHEETPORT_UPDATE_SCREENSHOTS=1; a plain test run writes
// them to a temp dir, so `npm test` leaves the checkout as it found it.
const SHOTS_TO_DOCS = process.env.SHEETPORT_UPDATE_SCREENSHOTS === '1';

/** The page under test, built from the current sources (npm run build:ui) into renderer/dist. */
export function buildDashboard(): void {
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
}

/** The dashboard's address with a fresh one-use sign-in code, as `sheetport dashboard` and the tray open it. */
export function signInUrl(service: { url: string; signInCode(): string }): string {
  return `${service.url}/ui/#code=${encodeURIComponent(service.signInCode())}`;
}

/** `beforeGoto` sees the page before the dashboard loads (to listen to its console, say); `config` is the
 * server's (default: test/helpers/config.ts's). */
export async function openDashboard(
  beforeGoto: (page: Page) => void = () => {},
  config: SheetPortConfig = testConfig(),
): Promise<DashboardSession> {
  buildDashboard();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-ui-'));
  const service = await startServer({
    dataDir: path.join(dir, 'data'),
    config,
    port: 0,
    host: '127.0.0.1',
    log: () => {},
  });
  const { context: browser, profile } = await launchChromium();
  const page = await browser.newPage();
  beforeGoto(page);
  await page.goto(signInUrl(service));
  return {
    dir,
    service,
    browser,
    page,
    async expectAccessible() {
      const violations = await seriousViolations(page);
      expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
    },
    async shot(name) {
      const folder = SHOTS_TO_DOCS ? new URL('docs/screenshots/', ROOT).pathname : dir;
      await page.screenshot({ path: path.join(folder, `${name}.png`), fullPage: false });
    },
    async close() {
      await browser.close();
      await service.stop();
      await rm(dir, { recursive: true, force: true });
      await rm(profile, { recursive: true, force: true });
    },
  };
}
