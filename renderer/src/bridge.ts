/**
 * What the desktop app's preload puts on `window.sheetport` (main/ipc-channels.ts, SheetPortBridge). The page
 * imports nothing of main/, so the shape is repeated here; in a plain browser there is no bridge at all, and
 * every caller keeps its browser way.
 */
export interface DesktopBridge {
  /** A workbook chosen in the system file dialog, or null when cancelled. */
  pickFile?(): Promise<string | null>;
  /** Opens an http(s) link in the system browser; false when it was refused. */
  openExternal?(url: string): Promise<boolean>;
}

declare global {
  interface Window {
    sheetport?: DesktopBridge;
  }
}

export function desktop(): DesktopBridge | null {
  return window.sheetport ?? null;
}
