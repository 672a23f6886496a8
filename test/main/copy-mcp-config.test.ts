/**
 * The tray's "Copy MCP config" over a real server (startServer, as main/index.ts wires it) and the tray menu
 * model: the item puts the Claude Desktop config on the clipboard, with absolute paths that exist, the server's
 * data dir, and a new read_write key the server accepts. The clipboard is the one part stood in for (Electron's
 * cannot run here): a function that keeps what it is given, as `clipboard.writeText` is injected in the app.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Lifecycle } from '../../main/lifecycle.ts';
import { copyMcpConfig } from '../../main/mcp-config.ts';
import { type TrayActions, trayMenuTemplate } from '../../main/tray-menu.ts';
import { type RunningServer, startServer } from '../../server/index.ts';
import { scopeOfWorkingKey } from '../helpers/mcp-client.ts';

let dir: string;
let lifecycle: Lifecycle | null = null;
afterEach(async () => {
  await lifecycle?.stop();
  lifecycle = null;
  await rm(dir, { recursive: true, force: true });
});

const noop = () => {};

describe("the tray's Copy MCP config", () => {
  it('puts a Claude Desktop config with a new read_write key on the clipboard', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-tray-mcp-'));
    const dataDir = path.join(dir, 'data');
    let server: RunningServer | null = null;
    const running = new Lifecycle({
      start: async () => {
        server = await startServer({ dataDir, port: 0, host: '127.0.0.1', log: noop });
        return server;
      },
    });
    lifecycle = running;
    await running.start();
    if (!server) throw new Error('server did not start');
    const service: RunningServer = server;

    let clipboard = '';
    let copying: Promise<unknown> = Promise.resolve();
    const actions: TrayActions = {
      openDashboard: noop,
      copyApiUrl: noop,
      copyMcpConfig: () => {
        copying = copyMcpConfig(service, { fetch, writeText: (text) => (clipboard = text) });
      },
      toggleSync: noop,
      toggleTunnel: noop,
      openLogs: noop,
      rotateAdminToken: noop,
      setLaunchAtLogin: noop,
      quit: noop,
    };
    const items = trayMenuTemplate(
      { ...running.state, launchAtLogin: false, launchAtLoginSupported: false },
      actions,
    );
    const item = items.find((i) => i.id === 'copy-mcp-config');
    if (!item) throw new Error('no Copy MCP config item');
    expect(item.enabled).toBe(true);
    (item.click as () => void)();
    expect(await copying).toBe('claude_desktop');

    const entry = (
      JSON.parse(clipboard) as {
        mcpServers: { sheetport: { command: string; args: string[]; env: { SHEETPORT_KEY: string } } };
      }
    ).mcpServers.sheetport;
    expect(path.isAbsolute(entry.command) && existsSync(entry.command)).toBe(true);
    expect(existsSync(entry.args[0] ?? '')).toBe(true);
    expect(entry.args.slice(1)).toEqual(['mcp', '--data-dir', dataDir]);
    const key = entry.env.SHEETPORT_KEY;
    expect(await scopeOfWorkingKey(service, key)).toEqual(['read_write']);
  });
});
