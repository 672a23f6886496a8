/**
 * IPC sender checks and the handlers behind them. Electron's ipcMain cannot run here (no Electron binary), so
 * the handlers are registered on a stand-in that keeps them and calls them the way ipcMain.handle would.
 */
import { describe, expect, it } from 'vitest';
import { type InvokeEvent, IpcRefused, registerIpcHandlers } from '../../main/ipc.ts';
import { IPC_CHANNELS } from '../../main/ipc-channels.ts';
import { isTrustedSender } from '../../main/ipc-sender.ts';

const PORT = 8787;
const DASHBOARD = 'http://127.0.0.1:8787/ui/';
const trusted = { ids: new Set([7]), port: PORT };

describe('IPC sender check', () => {
  it('answers a frame of a window this app created, showing the dashboard', () => {
    expect(isTrustedSender({ webContentsId: 7, frameUrl: DASHBOARD }, trusted)).toBe(true);
    expect(isTrustedSender({ webContentsId: 7, frameUrl: `${DASHBOARD}#/webhooks` }, trusted)).toBe(true);
  });

  it('refuses other windows, frames that navigated away, and frames that are gone', () => {
    expect(isTrustedSender({ webContentsId: 8, frameUrl: DASHBOARD }, trusted)).toBe(false);
    expect(isTrustedSender({ webContentsId: 7, frameUrl: 'https://evil.example/ui/' }, trusted)).toBe(false);
    expect(isTrustedSender({ webContentsId: 7, frameUrl: 'http://127.0.0.1:9000/ui/' }, trusted)).toBe(false);
    expect(isTrustedSender({ webContentsId: 7, frameUrl: 'http://127.0.0.1:8787/admin/' }, trusted)).toBe(
      false,
    );
    expect(isTrustedSender({ webContentsId: 7, frameUrl: 'file:///tmp/x.html' }, trusted)).toBe(false);
    expect(isTrustedSender({ webContentsId: 7, frameUrl: null }, trusted)).toBe(false);
  });
});

type Listener = (event: InvokeEvent, ...args: unknown[]) => unknown;

function setup(windows: typeof trusted | null = trusted) {
  const handlers = new Map<string, Listener>();
  const done: string[] = [];
  registerIpcHandlers({ handle: (channel, listener) => handlers.set(channel, listener) }, () => windows, {
    pickFile: async () => '/home/me/people.xlsx',
    copyText: (text) => {
      done.push(`copy ${text}`);
    },
    openExternal: async (url) => {
      done.push(`open ${url}`);
    },
  });
  const invoke = async (channel: string, event: InvokeEvent, ...args: unknown[]) => {
    const handler = handlers.get(channel);
    if (!handler) throw new Error(`no handler for ${channel}`);
    return handler(event, ...args);
  };
  return { handlers, done, invoke };
}

const fromDashboard: InvokeEvent = { sender: { id: 7 }, senderFrame: { url: DASHBOARD } };
const fromElsewhere: InvokeEvent = { sender: { id: 7 }, senderFrame: { url: 'https://evil.example/' } };

describe('IPC handlers', () => {
  it('registers exactly the channels of the one list', () => {
    expect([...setup().handlers.keys()].sort()).toEqual(Object.values(IPC_CHANNELS).sort());
  });

  it('does the work for the dashboard', async () => {
    const { invoke, done } = setup();
    expect(await invoke(IPC_CHANNELS.pickFile, fromDashboard)).toBe('/home/me/people.xlsx');
    expect(await invoke(IPC_CHANNELS.copyText, fromDashboard, 'sp_live_123')).toBe(true);
    expect(await invoke(IPC_CHANNELS.openExternal, fromDashboard, 'https://example.com/docs')).toBe(true);
    expect(done).toEqual(['copy sp_live_123', 'open https://example.com/docs']);
  });

  it('refuses every channel to an untrusted sender, and everything before the server runs', async () => {
    const { invoke, done } = setup();
    for (const channel of Object.values(IPC_CHANNELS))
      await expect(invoke(channel, fromElsewhere, 'x')).rejects.toBeInstanceOf(IpcRefused);
    const notYet = setup(null);
    await expect(notYet.invoke(IPC_CHANNELS.pickFile, fromDashboard)).rejects.toBeInstanceOf(IpcRefused);
    expect(done).toEqual([]);
  });

  it('checks arguments: only a string to copy, only an http(s) link to open', async () => {
    const { invoke, done } = setup();
    await expect(invoke(IPC_CHANNELS.copyText, fromDashboard, { evil: true })).rejects.toBeInstanceOf(
      IpcRefused,
    );
    await expect(invoke(IPC_CHANNELS.copyText, fromDashboard, 'x'.repeat(70_000))).rejects.toBeInstanceOf(
      IpcRefused,
    );
    expect(await invoke(IPC_CHANNELS.openExternal, fromDashboard, 'file:///etc/passwd')).toBe(false);
    expect(await invoke(IPC_CHANNELS.openExternal, fromDashboard, 'smb://host/share')).toBe(false);
    expect(done).toEqual([]);
  });
});
