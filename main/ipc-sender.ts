/**
 * Every IPC message is checked for who sent it (Electron security checklist item 17): only a frame of a window
 * this app created, showing the dashboard at the app's own origin, is answered. A frame that navigated away or a
 * web page in some other webContents gets a refusal.
 */
import { isDashboardUrl } from './navigation.ts';

export interface IpcSender {
  /** The id of the sender's webContents. */
  webContentsId: number;
  /** The sending frame's URL (null when the frame is gone). */
  frameUrl: string | null | undefined;
}

export interface TrustedWindows {
  /** webContents ids of the windows this app created. */
  ids: ReadonlySet<number>;
  /** The port the dashboard is served on. */
  port: number;
}

export function isTrustedSender(sender: IpcSender, trusted: TrustedWindows): boolean {
  if (!trusted.ids.has(sender.webContentsId)) return false;
  if (!sender.frameUrl) return false;
  return isDashboardUrl(sender.frameUrl, trusted.port);
}
