import type { ChangeRecorder } from '../changes/recorder.ts';
import type { AppError } from '../errors.ts';
import type { RetryStreak } from '../lib/retry-streak.ts';
import { Turns } from '../lib/turns.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import type {
  Mutation,
  Source,
  SourceFreshness,
  SpreadsheetSnapshot,
  TabSnapshot,
  WatchInterest,
  WriteOptions,
  WriteResult,
} from '../sources/source.ts';
import { CurrentCopy } from './current-copy.ts';
import { findTab, type TabRef } from './find-tab.ts';
import { Following } from './following.ts';
import { LastRecorded } from './last-recorded.ts';
import { type Lease, type Ownership, ownershipEnded } from './ownership.ts';
import { type PendingWrite, writeTurn } from './write.ts';

/** What every Spreadsheet of a service shares (built once by `Spreadsheets`). */
export interface SpreadsheetServices {
  /** `onReadProgress` hears how far a large read of its file has come (a fraction of its bytes). */
  openSource: (connection: ConnectionRecord, onReadProgress: (fraction: number) => void) => Source;
  record: ChangeRecorder['record'];
  /** Throws (507) when a write's change could not be recorded now: checked before each write. */
  assertCanRecord: () => void;
  ownership: Ownership;
  /** The recorder's failures, logged once until it works again. */
  recordingStreak: RetryStreak;
  log: (message: string, err?: unknown) => void;
}

/**
 * One connected spreadsheet, and its one owner in this process: the only way routes, the CLI and webhook
 * registration read it, write it, look at it for outside changes, or find one of its tabs.
 *
 * Reading records nothing. What the service has seen is recorded (diffed into the change log and the webhook
 * outbox, or kept as the first baseline) by `observe` (the follower on every outside change, webhook registration
 * and the change feed before they answer) and by every write, before it is answered. Writes and recordings take
 * turns (lib/turns.ts), each under the ownership's `exclusive`. Watching and recording outside changes need the
 * spreadsheet's lease; who writes is the ownership's `writers` (repositories/ownership.ts): the lease holder in
 * one process, where losing the lease ends this object; every instance in team mode, where a write first brings
 * the copy current (another instance may have written) and losing the lease only stops the watching (the
 * follower asks for it again) while reads and writes go on.
 */
export class Spreadsheet {
  /** The connection's newest stored record (`Spreadsheets.of` updates it). */
  connection: ConnectionRecord;
  readonly #services: SpreadsheetServices;
  readonly #copy: CurrentCopy;
  readonly #recorded: LastRecorded;
  readonly #turns: Turns<PendingWrite>;
  /** Writes being checked for a refusal at once (`write`), in the order they came. */
  #admission: Promise<void> = Promise.resolve();
  readonly #following: Following;
  #lease: Promise<Lease | null> | null = null;
  /** Team mode: every instance writes, so a write brings the copy current first and a lost lease ends nothing. */
  readonly #everyInstanceWrites: boolean;
  /** Why this object is done (its lease lost, closed); every later call answers with it. */
  #ended: AppError | null = null;
  readonly #onEnd: (spreadsheet: Spreadsheet) => void;
  /** How far the read under way has come, as its source last said. */
  #readFraction = 0;

  /** `onEnd` is told once the spreadsheet is closed or its lease lost, so its registry lets it go. */
  constructor(connection: ConnectionRecord, services: SpreadsheetServices, onEnd: (s: Spreadsheet) => void) {
    this.connection = connection;
    this.#services = services;
    this.#onEnd = onEnd;
    this.#everyInstanceWrites = services.ownership.writers === 'every instance';
    this.#copy = new CurrentCopy(
      services.openSource(connection, (fraction) => {
        this.#readFraction = fraction;
      }),
    );
    this.#recorded = new LastRecorded(connection.spreadsheetId, services.record, services.recordingStreak);
    this.#following = new Following(
      this.#copy.source,
      () => this.#owns(),
      () => void this.observe().catch(() => {}),
    );
    const parts = {
      copy: this.#copy,
      recorded: this.#recorded,
      confirmOwner: () => this.#confirmWriter(),
      assertCanRecord: services.assertCanRecord,
      log: services.log,
      ...(this.#everyInstanceWrites ? { catchUp: () => this.#copy.checked() } : {}),
    };
    this.#turns = new Turns((writes) =>
      this.#exclusively(() => writeTurn(parts, writes)).catch((err: unknown) => {
        for (const write of writes) write.reject(err); // the lock was not had: nothing was written
      }),
    );
  }

  get spreadsheetId(): string {
    return this.connection.spreadsheetId;
  }

  /** Its tabs are being read and none can be answered yet (a large workbook's first read). */
  get loading(): boolean {
    return this.#ended === null && this.#copy.reading;
  }

  /** While it is `loading`, how far its read has come (0 to 1, 0 until the source first says); else null. */
  get readProgress(): number | null {
    return this.loading ? this.#readFraction : null;
  }

  /** Its tabs as of the source's cheap version. Records nothing (see `observe`). */
  async read(): Promise<SpreadsheetSnapshot> {
    if (this.#ended) throw this.#ended;
    return this.#copy.current();
  }

  /** As `read`, but asking the source even if this turn's reads did not need to (it may have changed since). */
  async #readChecked(): Promise<SpreadsheetSnapshot> {
    if (this.#ended) throw this.#ended;
    return this.#copy.checked();
  }

  /** One tab, by the one rule of find-tab.ts. */
  async tab(ref: TabRef): Promise<TabSnapshot> {
    return findTab(await this.read(), ref);
  }

  /**
   * Look now and record what changed outside SheetPort since the last recorded snapshot (its webhooks are
   * queued). On the first sight since start the stored baseline stands in for the last snapshot, so edits made
   * while SheetPort was stopped count too. A recording that fails is logged and looked at again by the follower.
   */
  async observe(): Promise<SpreadsheetSnapshot> {
    const seen = await this.#readChecked();
    // Readers waiting on the same read are answered first: recording can be long (a first sight stores the
    // whole tab), and a reader should not wait for it.
    await new Promise((resolve) => setImmediate(resolve));
    await this.#turns.run(async () => {
      if (!(await this.#owns())) return; // the owner records, elsewhere
      await this.#exclusively(async () => {
        // The newest copy by then: a write in between recorded its own, and a version is never recorded twice.
        // In team mode another instance's write may be newer still: the source's version is asked first.
        const newest = this.#everyInstanceWrites ? await this.#copy.checked() : (this.#copy.snapshot ?? seen);
        await this.#recorded.record(newest);
      }).catch(() => {});
    });
    return seen;
  }

  /**
   * Mutations of one tab, all or none; answered once the change is recorded (write.ts says in what order). A
   * write the source can refuse from its last read (a full sheet's append) is refused at once when no other write
   * is ahead of it, which could make room: not after the turns before it (a first recording of a million-row tab
   * takes seconds), and it changes nothing, so there is nothing to record. Writes reach their turns in the order
   * they came, each after the check of the one before.
   */
  write(sourceSheetId: string, mutations: Mutation[], options: WriteOptions): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      const write: PendingWrite = { sourceSheetId, mutations, options, resolve, reject };
      const source = this.#copy.source;
      if (!source.refusal) return this.#turns.submit(write);
      this.#admission = this.#admission
        .then(async () => {
          // A check that fails says nothing: the write goes on, and its turn decides.
          const refused = this.#turns.writing ? null : await source.refusal?.(write).catch(() => null);
          if (refused) reject(refused);
          else this.#turns.submit(write);
        })
        // Never a broken chain: the writes after this one would wait for ever.
        .catch(reject);
    });
  }

  /** A recording of `version` was made elsewhere: the copy, if of another version, is read again when next read. */
  recordedElsewhere(version: string | null): void {
    this.#copy.outdated(version);
  }

  /**
   * How current the copy is, as its source says (a source that cannot lag: age 0); stale, and as old as the wait,
   * while it is answered in place of a version another program is still saving.
   */
  freshness(): SourceFreshness {
    const source = this.#copy.source.freshness?.() ?? { ageMs: 0, stale: false };
    const behindSince = this.#copy.behindSince;
    if (behindSince === null) return source;
    return { ageMs: Math.max(source.ageMs, Date.now() - behindSince), stale: true };
  }

  /** Keep looking for outside changes while nobody reads (following.ts); looks once now too. */
  follow(interest?: WatchInterest): void {
    if (!this.#ended) this.#following.start(interest);
  }

  /** Stop watching for outside changes; reads and writes go on (pause sync). */
  unfollow(): void {
    this.#following.stop();
  }

  get followed(): boolean {
    return this.#following.on;
  }

  /** A change was seen whose recording failed: the follower looks again. */
  get unrecorded(): boolean {
    return this.#recorded.unrecorded;
  }

  /** Stop watching, give up ownership and close the source; later calls answer `reason`. */
  async close(reason: AppError = ownershipEnded(this.spreadsheetId)): Promise<void> {
    if (this.#ended) return;
    this.#end(reason);
    const lease = await this.#lease?.catch(() => null);
    if (lease) await this.#services.ownership.release(lease, reason);
    await this.#copy.source.close();
  }

  #end(reason: AppError): void {
    this.#ended = reason;
    this.#following.stop();
    this.#onEnd(this);
  }

  /** This spreadsheet's lease, asked for once (again after a refusal or a failure); null while another owner
   * holds it. */
  async #owns(): Promise<Lease | null> {
    if (this.#ended) return null;
    if (!this.#lease) {
      const asked: Promise<Lease | null> = this.#services.ownership.acquire(this.spreadsheetId).then(
        (lease) => {
          if (!lease && this.#lease === asked) this.#lease = null;
          lease?.lost.addEventListener('abort', () => this.#leaseLost(asked, lease.lost.reason as AppError));
          return lease;
        },
        (err: unknown) => {
          if (this.#lease === asked) this.#lease = null;
          throw err;
        },
      );
      this.#lease = asked;
    }
    const lease = await this.#lease;
    return lease && (await this.#services.ownership.renew(lease)) ? lease : null;
  }

  /** Where the lease holder alone writes, the spreadsheet is done; else only the watching stops, until it is had again. */
  #leaseLost(asked: Promise<Lease | null>, reason: AppError): void {
    if (this.#ended) return;
    if (!this.#everyInstanceWrites) {
      void this.close(reason);
      return;
    }
    if (this.#lease === asked) this.#lease = null;
    this.#following.stop();
  }

  /** A write may go ahead: this is the lease holder, or (every instance writes) the spreadsheet is still open. */
  async #confirmWriter(): Promise<void> {
    if (this.#everyInstanceWrites) {
      if (this.#ended) throw this.#ended;
      return;
    }
    if (await this.#owns()) return;
    throw this.#ended ?? ownershipEnded(this.spreadsheetId);
  }

  /** `work` while no other writer or recorder of the spreadsheet runs (a lock across instances in team mode). */
  #exclusively<T>(work: () => Promise<T>): Promise<T> {
    return this.#services.ownership.exclusive(this.spreadsheetId, work);
  }
}
