/**
 * The one list of IPC channels between the dashboard window and the main process, with each channel's
 * arguments and answer. The preload and the handlers both take their names and types from here.
 */
export const IPC_CHANNELS = {
  pickFile: 'sheetport:pick-file',
  copyText: 'sheetport:copy-text',
  openExternal: 'sheetport:open-external',
} as const;

export type IpcChannel = (typeof IPC_CHANNELS)[keyof typeof IPC_CHANNELS];

/** Arguments and answer of each channel (invoke/handle: every call gets an answer or a refusal). */
export interface IpcContract {
  'sheetport:pick-file': { args: []; result: string | null };
  'sheetport:copy-text': { args: [text: string]; result: true };
  'sheetport:open-external': { args: [url: string]; result: boolean };
}

/** What the preload puts on `window.sheetport` (the dashboard checks `window.sheetport?.pickFile`). */
export interface SheetPortBridge {
  /** A workbook chosen in the system file dialog (.xlsx, .xlsm, .csv), or null when cancelled. */
  pickFile(): Promise<string | null>;
  copyText(text: string): Promise<true>;
  /** Opens an http(s) link in the system browser; false when the link was refused. */
  openExternal(url: string): Promise<boolean>;
}
