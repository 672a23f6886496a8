/**
 * The main-process side of the IPC channels: one handler per channel in ipc-channels.ts, each answering only a
 * trusted sender (ipc-sender.ts) and checking its arguments before doing anything.
 */
import { IPC_CHANNELS, type IpcChannel, type IpcContract } from './ipc-channels.ts';
import { type IpcSender, isTrustedSender, type TrustedWindows } from './ipc-sender.ts';
import { isExternalLinkAllowed } from './navigation.ts';

/** The part of an `IpcMainInvokeEvent` the checks read. */
export interface InvokeEvent {
  sender: { id: number };
  senderFrame: { url: string } | null;
}

/** The part of Electron's `ipcMain` used here. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEvent, ...args: unknown[]) => unknown): void;
}

/** What the handlers do once a call is let through (Electron's dialog, clipboard and shell in the app). */
export interface IpcActions {
  pickFile(): Promise<string | null>;
  copyText(text: string): void;
  openExternal(url: string): Promise<void>;
}

/** Longest text the dashboard may put on the clipboard (a key, a URL, a curl line). */
const MAX_CLIPBOARD_CHARS = 64 * 1024;

export class IpcRefused extends Error {}

function senderOf(event: InvokeEvent): IpcSender {
  return { webContentsId: event.sender.id, frameUrl: event.senderFrame?.url };
}

export function registerIpcHandlers(
  ipcMain: IpcMainLike,
  trusted: () => TrustedWindows | null,
  actions: IpcActions,
): void {
  const handle = <C extends IpcChannel>(
    channel: C,
    run: (args: unknown[]) => Promise<IpcContract[C]['result']> | IpcContract[C]['result'],
  ) => {
    ipcMain.handle(channel, (event, ...args) => {
      const windows = trusted();
      if (!windows || !isTrustedSender(senderOf(event), windows))
        throw new IpcRefused(`${channel}: the sender is not the SheetPort dashboard`);
      return run(args);
    });
  };

  handle(IPC_CHANNELS.pickFile, () => actions.pickFile());
  handle(IPC_CHANNELS.copyText, ([text]) => {
    if (typeof text !== 'string' || text.length > MAX_CLIPBOARD_CHARS)
      throw new IpcRefused('copy-text takes one string of at most 64 KiB');
    actions.copyText(text);
    return true as const;
  });
  handle(IPC_CHANNELS.openExternal, async ([url]) => {
    if (typeof url !== 'string' || !isExternalLinkAllowed(url)) return false;
    await actions.openExternal(url);
    return true;
  });
}
