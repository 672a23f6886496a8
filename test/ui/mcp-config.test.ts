/**
 * The dashboard's "Use with an AI assistant (MCP)" section in headless Chromium against a real server: the user
 * picks read_write, presses the button, and gets each client's config with a Copy button; the Claude Desktop
 * config copied from the page starts `sheetport mcp` on the server's data dir with absolute paths, and its key is
 * a new read_write key the server accepts. The section has no serious accessibility violation.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../server/index.ts';
import { scopeOfWorkingKey } from '../helpers/mcp-client.ts';
import { type DashboardSession, openDashboard } from './browser.ts';

let ui: DashboardSession;
let service: RunningServer;
let page: Page;

beforeAll(async () => {
  ui = await openDashboard();
  ({ service, page } = ui);
  await ui.browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.url });
}, 60_000);
afterAll(async () => {
  await ui?.close();
});

interface StdioEntry {
  command: string;
  args: string[];
  env: { SHEETPORT_KEY: string };
}

describe('the dashboard gives an AI assistant its config', { timeout: 30_000 }, () => {
  it('makes a read_write key and shows each client its config to copy', async () => {
    await page.getByRole('link', { name: 'AI assistants', exact: true }).click();
    await page.getByRole('heading', { level: 2, name: 'Use with an AI assistant (MCP)' }).waitFor();
    await page.getByRole('radio', { name: /read_write/ }).check();
    await page.getByRole('button', { name: 'Create key and show the config' }).click();
    await page.getByRole('heading', { level: 4, name: 'Claude Desktop' }).waitFor();
    for (const label of ['VS Code', 'Cursor', 'Streamable HTTP'])
      await page.getByRole('heading', { level: 4, name: label }).waitFor();
    await ui.expectAccessible();

    await page.getByRole('button', { name: 'Copy the Claude Desktop config' }).click();
    await page.getByRole('button', { name: 'Copy the Claude Desktop config' }).getByText('Copied').waitFor();
    const copied = (await page.evaluate('navigator.clipboard.readText()')) as string;
    const shown = await page.getByRole('region', { name: 'Claude Desktop config' }).innerText();
    expect(JSON.parse(copied)).toEqual(JSON.parse(shown));
    const entry = (JSON.parse(copied) as { mcpServers: { sheetport: StdioEntry } }).mcpServers.sheetport;
    expect(path.isAbsolute(entry.command) && existsSync(entry.command)).toBe(true);
    expect(existsSync(entry.args[0] ?? '')).toBe(true);
    expect(entry.args.slice(1)).toEqual(['mcp', '--data-dir', service.context.dataDir]);

    const key = entry.env.SHEETPORT_KEY;
    expect(await scopeOfWorkingKey(service, key)).toEqual(['read_write']);

    const http = JSON.parse(
      await page.getByRole('region', { name: 'Streamable HTTP config' }).innerText(),
    ) as { url: string; headers: { Authorization: string } };
    expect(http).toEqual({
      type: 'http',
      url: `${service.url}/mcp`,
      headers: { Authorization: `Bearer ${key}` },
    });
  });

  it('refuses an unknown scope in the envelope, creating no key', async () => {
    const before = await keyCount();
    const res = await fetch(`${service.url}/admin/mcp-config`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${service.adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ scope: 'admin' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_body');
    expect(await keyCount()).toBe(before);
  });
});

async function keyCount(): Promise<number> {
  const res = await fetch(`${service.url}/admin/keys`, {
    headers: { Authorization: `Bearer ${service.adminToken}` },
  });
  return ((await res.json()) as { data: unknown[] }).data.length;
}
