import type { ChangeRecorder } from '../changes/recorder.ts';
import { AppError } from '../errors.ts';
import { RetryStreak } from '../lib/retry-streak.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import type { Ownership } from './ownership.ts';
import { Spreadsheet } from './spreadsheet.ts';

export interface SpreadsheetsOptions {
  openSource: ConstructorParameters<typeof Spreadsheet>[1]['openSource'];
  /** The change recorder (changes/recorder.ts); default: records nothing. */
  record?: ChangeRecorder['record'];
  /** Throws (507) when a write's change could not be recorded now; default: never. */
  assertCanRecord?: () => void;
  ownership: Ownership;
  log?: (message: string, err?: unknown) => void;
}

/** Every connected spreadsheet of this service, one `Spreadsheet` per connection. */
export class Spreadsheets {
  readonly #services: ConstructorParameters<typeof Spreadsheet>[1];
  readonly #open = new Map<string, Spreadsheet>();

  constructor(options: SpreadsheetsOptions) {
    const log = options.log ?? (() => {});
    this.#services = {
      openSource: options.openSource,
      record: options.record ?? (async () => {}),
      assertCanRecord: options.assertCanRecord ?? (() => {}),
      ownership: options.ownership,
      recordingStreak: new RetryStreak({ name: 'Recording changes', log }),
      log,
    };
  }

  /** The connection's spreadsheet: the same object for as long as it is open (it opens on first use). */
  of(connection: ConnectionRecord): Spreadsheet {
    const open = this.#open.get(connection.spreadsheetId);
    if (open) {
      open.connection = connection;
      return open;
    }
    const spreadsheet = new Spreadsheet(connection, this.#services, (ended) => {
      if (this.#open.get(ended.spreadsheetId) === ended) this.#open.delete(ended.spreadsheetId);
    });
    this.#open.set(connection.spreadsheetId, spreadsheet);
    return spreadsheet;
  }

  /** A removed connection: its source closes and its copy goes; a write still waiting answers 404. */
  async forget(spreadsheetId: string): Promise<void> {
    await this.#open
      .get(spreadsheetId)
      ?.close(
        new AppError('spreadsheet_not_found', 'This spreadsheet was disconnected; the write was not made.'),
      );
  }

  /** Another instance recorded a change of this spreadsheet at `version` (team mode; a null id: of any): its copy
   * here, if it holds another version, is read again at the next read, without waiting for the source's own
   * version check. */
  recordedElsewhere(spreadsheetId: string | null, version: string | null): void {
    if (spreadsheetId === null)
      for (const spreadsheet of this.#open.values()) spreadsheet.recordedElsewhere(null);
    else this.#open.get(spreadsheetId)?.recordedElsewhere(version);
  }

  /** The spreadsheets being followed (connection follower). */
  followed(): string[] {
    return [...this.#open.values()].filter((s) => s.followed).map((s) => s.spreadsheetId);
  }

  /** How many spreadsheets are being read with nothing to answer from yet (`/readyz`). */
  loading(): number {
    let count = 0;
    for (const spreadsheet of this.#open.values()) if (spreadsheet.loading) count++;
    return count;
  }

  /** How far the first read of an open spreadsheet has come (`Spreadsheet.readProgress`); null when it is not
   * being read with nothing to answer from, or not open (this does not open it). */
  readProgress(spreadsheetId: string): number | null {
    return this.#open.get(spreadsheetId)?.readProgress ?? null;
  }

  /** Spreadsheets with a change whose recording failed, waiting for another look. */
  unrecorded(): Spreadsheet[] {
    return [...this.#open.values()].filter((s) => s.unrecorded);
  }

  /** Stop watching every spreadsheet for outside changes; reads and writes go on (pause sync). */
  unfollowAll(): void {
    for (const spreadsheet of this.#open.values()) spreadsheet.unfollow();
  }

  /** The service stops: every spreadsheet closes and gives up its lease. */
  async close(): Promise<void> {
    await Promise.all([...this.#open.values()].map((s) => s.close()));
  }
}
