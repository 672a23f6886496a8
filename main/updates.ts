/**
 * Auto-update through electron-updater: a packaged app looks for a newer release once at start (the feed is the
 * `publish` entry of electron-builder.yml). A run from a checkout (`npm run app`) never looks.
 */
export interface Updater {
  checkForUpdatesAndNotify(): Promise<unknown>;
}

export async function checkForUpdatesOnStart(
  isPackaged: boolean,
  updater: () => Promise<Updater>,
  log: (message: string, err?: unknown) => void,
): Promise<'checked' | 'skipped' | 'failed'> {
  if (!isPackaged) return 'skipped';
  try {
    await (await updater()).checkForUpdatesAndNotify();
    return 'checked';
  } catch (err) {
    // Offline, no release published yet, an unsigned build: the app works on without updating.
    log('Update check failed', err);
    return 'failed';
  }
}
