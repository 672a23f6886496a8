/**
 * The dashboard window's preload: a small typed API on `window.sheetport`, nothing of Electron itself
 * (checklist item 20). Sandboxed preloads run as CommonJS and may not load the app's own modules, so the channel
 * names are repeated here; the `satisfies` line makes the compiler hold them equal to ipc-channels.ts.
 */
import type { IPC_CHANNELS as Channels, SheetPortBridge } from './ipc-channels.ts';

const { contextBridge, ipcRenderer } = require('electron') as typeof import('electron');

const CHANNELS = {
  pickFile: 'sheetport:pick-file',
  copyText: 'sheetport:copy-text',
  openExternal: 'sheetport:open-external',
} as const satisfies typeof Channels;

const bridge: SheetPortBridge = {
  pickFile: () => ipcRenderer.invoke(CHANNELS.pickFile),
  copyText: (text) => ipcRenderer.invoke(CHANNELS.copyText, text),
  openExternal: (url) => ipcRenderer.invoke(CHANNELS.openExternal, url),
};

contextBridge.exposeInMainWorld('sheetport', bridge);
