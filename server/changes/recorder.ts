import type { ChangeRecording } from '../repositories/change-log.ts';
import type { SpreadsheetSnapshot } from '../sources/source.ts';
import { rowsComplete } from '../sources/tab-rows.ts';
import type { EventRules } from '../webhooks/events.ts';
import { comparedTabs, planRecording, planRecordingPaced } from './recording-plan.ts';

export interface RecorderDeps {
  recording: ChangeRecording;
  now: () => number;
  rules: EventRules;
  /** Called after a recording queued notifications (wakes the delivery worker). */
  onQueued: () => void;
  /** Called after each recording committed (the service's tab changes look at the change log, tab-changes.ts). */
  onRecorded?: (spreadsheetId: string) => void;
}

/**
 * Turns a new snapshot of a spreadsheet into recorded changes: per tab, the row diff against what was recorded
 * last (recording-plan.ts), then, together or not at all, the change-log entries, the webhook notifications
 * (the outbox) and the new baseline. API writes call it after the source has the write and before the client
 * is answered; detected changes (a save in Excel) call it when the Spreadsheet notices them. Either way a change
 * is recorded once.
 */
export class ChangeRecorder {
  readonly #deps: RecorderDeps;

  constructor(deps: RecorderDeps) {
    this.#deps = deps;
  }

  /**
   * `before` is the snapshot last recorded for this spreadsheet in this process, or null on the first sight of
   * it since start; then the stored baselines stand in, so changes made while SheetPort was stopped count.
   * The change is committed when the promise resolves (a large tab's slow parts are done a slice at a time
   * first), and a failure rejects it.
   */
  async record(
    spreadsheetId: string,
    before: SpreadsheetSnapshot | null,
    after: SpreadsheetSnapshot,
  ): Promise<void> {
    const { recording, rules, onQueued, onRecorded } = this.#deps;
    // A tab just read makes its rows behind its first answers; the diff reads them all.
    await rowsComplete([...(before?.tabs ?? []), ...after.tabs]);
    return recording
      .record({
        spreadsheetId,
        version: after.version,
        nowMs: this.#deps.now(),
        previous: before ? comparedTabs(before) : null,
        current: { version: after.version, tabs: comparedTabs(after) },
        plan: (previous) => planRecording(spreadsheetId, previous, after, rules),
        planPaced: (previous) => planRecordingPaced(spreadsheetId, previous, after, rules),
      })
      .then(({ queued }) => {
        if (queued > 0) onQueued();
        onRecorded?.(spreadsheetId);
      });
  }
}
