import type { ChangeRecorder } from '../changes/recorder.ts';
import type { RetryStreak } from '../lib/retry-streak.ts';
import type { SpreadsheetSnapshot } from '../sources/source.ts';

/** What one spreadsheet has recorded: each version is handed to the recorder once, and the next is diffed
 * against it. Called within the spreadsheet's turns only (lib/turns.ts), so recordings never overlap. */
export class LastRecorded {
  readonly #spreadsheetId: string;
  readonly #record: ChangeRecorder['record'];
  /** Shared by every spreadsheet: a failing recorder (a full disk) is logged once until it works again. */
  readonly #streak: RetryStreak;
  #recorded: SpreadsheetSnapshot | null = null;
  /** A snapshot whose recording failed is waiting: the follower looks again until it is recorded. */
  unrecorded = false;

  constructor(spreadsheetId: string, record: ChangeRecorder['record'], streak: RetryStreak) {
    this.#spreadsheetId = spreadsheetId;
    this.#record = record;
    this.#streak = streak;
  }

  /** Record `snapshot` unless it is the version recorded last. Rejects with the recorder's error. */
  async record(snapshot: SpreadsheetSnapshot): Promise<void> {
    if (this.#recorded?.version === snapshot.version) {
      this.unrecorded = false; // what failed to record was undone: the source is back at the recorded version
      return;
    }
    try {
      await this.#record(this.#spreadsheetId, this.#recorded, snapshot);
    } catch (err) {
      this.unrecorded = true;
      this.#streak.failed(err);
      throw err;
    }
    this.#recorded = snapshot;
    this.unrecorded = false;
    this.#streak.succeeded();
  }
}
