import { AppError } from '../errors.ts';
import { RetryStreak } from '../lib/retry-streak.ts';
import { insufficientStorage, isStorageFailure } from '../lib/storage-failure.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import type {
  Mutation,
  Source,
  SourceFreshness,
  SpreadsheetSnapshot,
  TabSnapshot,
  Unwatch,
  WatchInterest,
  WriteOptions,
  WriteResult,
  WriteUndo,
} from '../sources/source.ts';

/** One connection's tabs as last read, with the lookups the routes need. Immutable: a change makes a new one. */
export interface ReplicaEntry {
  snapshot: SpreadsheetSnapshot;
  byName: Map<string, TabSnapshot>;
  bySourceSheetId: Map<string, TabSnapshot>;
}

function entryOf(snapshot: SpreadsheetSnapshot): ReplicaEntry {
  return {
    snapshot,
    byName: new Map(snapshot.tabs.map((t) => [t.name, t])),
    bySourceSheetId: new Map(snapshot.tabs.map((t) => [t.sourceSheetId, t])),
  };
}

interface Slot {
  source: Source;
  entry: ReplicaEntry | null;
  /** The snapshot last handed to `onChange`: the next change is diffed against it. */
  recorded: SpreadsheetSnapshot | null;
  /** The freshness check in flight, shared by every request that arrives meanwhile (one stat, not hundreds). */
  check: Promise<ReplicaEntry> | null;
  /** Bumped by each write so a slower read that began earlier never replaces a newer snapshot. */
  generation: number;
  /** Set while the replica follows the source's outside changes (see `follow`). */
  unwatch: Unwatch | null;
  /** A snapshot whose recording failed (a full disk) is waiting: the follower looks again until it is recorded. */
  unrecorded: boolean;
  /** A write's version that was undone because it could not be recorded, and what its writers were answered. */
  undone: { version: string; error: AppError } | null;
}

/**
 * Told about every new snapshot of a connection, with the previous one (null on the first sight since start).
 * The change recorder diffs them; it runs before a write is answered.
 */
export type ChangeListener = (
  connection: ConnectionRecord,
  before: SpreadsheetSnapshot | null,
  after: SpreadsheetSnapshot,
) => void;

/**
 * The service's copy of each connection's tabs. Reads are served from memory; before each read the source's
 * cheap version token (a file stat) is compared and the tabs are re-read only when it changed. A write goes to
 * the source first and the replica takes the snapshot the source returns, so it never shows an unwritten row.
 *
 * Reading records nothing. What the service has seen is recorded (diffed into the change log and the webhook
 * outbox, or kept as the first baseline) by an explicit `observe`: the follower on every outside change, webhook
 * registration and the change feed before they answer; and by every write, before it is answered.
 */
export class Replica {
  readonly #openSource: (connection: ConnectionRecord) => Source;
  readonly #onChange: ChangeListener;
  readonly #log: (message: string, err?: unknown) => void;
  readonly #assertCanRecord: () => void;
  readonly #recording: RetryStreak;
  readonly #slots = new Map<string, Slot>();

  /** `assertCanRecord` throws (507) when a write's change could not be recorded now: checked before each write. */
  constructor(
    openSource: (connection: ConnectionRecord) => Source,
    onChange: ChangeListener = () => {},
    log: (message: string, err?: unknown) => void = () => {},
    assertCanRecord: () => void = () => {},
  ) {
    this.#openSource = openSource;
    this.#onChange = onChange;
    this.#log = log;
    this.#assertCanRecord = assertCanRecord;
    this.#recording = new RetryStreak({ name: 'Recording changes', log });
  }

  /** The connection's copy, current as of the source's cheap version. Records nothing (see `observe`). */
  async get(connection: ConnectionRecord): Promise<ReplicaEntry> {
    const slot = this.#slot(connection);
    if (!slot.check) {
      const check = this.#refresh(slot).finally(() => {
        if (slot.check === check) slot.check = null;
      });
      slot.check = check;
    }
    return slot.check;
  }

  /**
   * Look at the connection and record what is new since the last recorded snapshot: a change made outside
   * SheetPort goes to the change log and the webhooks; on the first sight since start the stored baseline stands
   * in for the last snapshot (so edits made while SheetPort was stopped count too), or becomes the baseline.
   */
  async observe(connection: ConnectionRecord): Promise<ReplicaEntry> {
    const entry = await this.get(connection);
    // Readers waiting on the same read are answered first: recording can be long (a first sight stores the
    // whole tab), and a reader should not wait for it. What is recorded is the newest copy by then (a write
    // in between has recorded its own, and the same version is never recorded twice).
    await new Promise((resolve) => setImmediate(resolve));
    const slot = this.#slot(connection);
    try {
      this.#record(connection, slot, slot.entry?.snapshot ?? entry.snapshot);
    } catch {
      // Logged by #record; the follower looks again (`unrecorded`) until there is room.
    }
    return entry;
  }

  /** Connections with a snapshot whose recording failed and waits for another look. */
  unrecorded(): string[] {
    return [...this.#slots].filter(([, slot]) => slot.unrecorded).map(([id]) => id);
  }

  async tabByName(connection: ConnectionRecord, name: string): Promise<TabSnapshot> {
    const tab = (await this.get(connection)).byName.get(name);
    if (!tab)
      throw new AppError(
        'sheet_not_found',
        `No tab named "${name}" in this spreadsheet (a tab renamed or deleted since is gone under its old name); ` +
          '`GET /v1/spreadsheets/{spreadsheet_id}` lists its tabs.',
        { sheet: name },
      );
    return tab;
  }

  async write(
    connection: ConnectionRecord,
    sourceSheetId: string,
    mutations: Mutation[],
    options: WriteOptions,
  ): Promise<WriteResult> {
    const slot = this.#slot(connection);
    // A write is answered only once its change is recorded: one the data dir could not record is refused
    // before the source takes it.
    this.#assertCanRecord();
    // An outside change a read has loaded but nobody recorded yet is recorded on its own first, so it is not
    // merged into this write's changes (and when it cannot be, the write is not made either).
    if (slot.entry) {
      try {
        this.#record(connection, slot, slot.entry.snapshot);
      } catch (err) {
        throw answerFor(err, false);
      }
    }
    const { undo, ...result } = await slot.source.write(sourceSheetId, mutations, {
      ...options,
      undoable: true,
    });
    // Writes committed together share a version: when one of them had to undo it, the others are answered alike.
    if (slot.undone?.version === result.snapshot.version) throw slot.undone.error;
    // From here the source has the write: whatever cannot be recorded takes it back.
    try {
      slot.generation++;
      // The write was redone on a save made meanwhile by another program: that save is an outside change.
      if (result.before) this.#record(connection, slot, result.before);
      slot.entry = entryOf(result.snapshot);
      this.#record(connection, slot, result.snapshot);
    } catch (err) {
      throw await this.#undo(slot, result.snapshot.version, undo, err);
    }
    undo?.keep();
    return result;
  }

  /**
   * The source took a write whose change could not be recorded: put back what it replaced, so nothing unrecorded
   * stays, and say what happened. A source that cannot undo (or a file saved again meanwhile) keeps the write;
   * it is recorded once there is room (the follower looks again), and the answer says so.
   */
  async #undo(slot: Slot, version: string, undo: WriteUndo | undefined, cause: unknown): Promise<AppError> {
    let undone = false;
    try {
      undone = (await undo?.revert()) ?? false;
    } catch (err) {
      this.#log('Undoing a write that could not be recorded failed', err);
    }
    const error = answerFor(cause, !undone);
    if (undone) {
      slot.generation++;
      slot.entry = null; // read again: the source holds the version before the write
      slot.undone = { version, error };
    }
    return error;
  }

  /**
   * Keep this connection current without anyone reading it: the source says when its content may have changed
   * outside SheetPort (how it notices is its own business) and the replica looks, so the change recorder sees
   * saves made in Excel or edits made in the browser. Looks once now, too.
   */
  follow(connection: ConnectionRecord, interest?: WatchInterest): void {
    const slot = this.#slot(connection);
    const look = () => {
      this.observe(connection).catch(() => {
        // A missing or unreadable source answers its readers with the error; nothing to do here.
      });
    };
    slot.unwatch ??= slot.source.watch(look, interest);
    look();
  }

  /** The connections being followed. */
  followed(): string[] {
    return [...this.#slots].filter(([, slot]) => slot.unwatch).map(([id]) => id);
  }

  /** Stop watching a connection for outside changes but keep its source and copy (reads go on; pause sync). */
  unfollow(spreadsheetId: string): void {
    const slot = this.#slots.get(spreadsheetId);
    slot?.unwatch?.();
    if (slot) slot.unwatch = null;
  }

  /** How current this connection's copy is, as its source says (a source that cannot lag: age 0). */
  freshness(connection: ConnectionRecord): SourceFreshness {
    return this.#slots.get(connection.spreadsheetId)?.source.freshness?.() ?? { ageMs: 0, stale: false };
  }

  /** Drop a removed connection's source and copy. */
  async forget(spreadsheetId: string): Promise<void> {
    const slot = this.#slots.get(spreadsheetId);
    this.#slots.delete(spreadsheetId);
    slot?.unwatch?.();
    await slot?.source.close();
  }

  async close(): Promise<void> {
    await Promise.all([...this.#slots.keys()].map((id) => this.forget(id)));
  }

  #slot(connection: ConnectionRecord): Slot {
    let slot = this.#slots.get(connection.spreadsheetId);
    if (!slot) {
      slot = {
        source: this.#openSource(connection),
        entry: null,
        recorded: null,
        check: null,
        generation: 0,
        unwatch: null,
        unrecorded: false,
        undone: null,
      };
      this.#slots.set(connection.spreadsheetId, slot);
    }
    return slot;
  }

  async #refresh(slot: Slot): Promise<ReplicaEntry> {
    const generation = slot.generation;
    const version = await slot.source.version();
    if (slot.entry && slot.entry.snapshot.version === version) return slot.entry;
    const snapshot = await slot.source.read();
    const entry = entryOf(snapshot);
    if (slot.generation !== generation) return slot.entry ?? entry; // a write overtook this read
    slot.entry = entry;
    return entry;
  }

  /**
   * Hand a new snapshot to the change listener, once per version. A failure there (the database, a full disk)
   * is logged once until recording works again and thrown: the caller decides what it means for its answer.
   */
  #record(connection: ConnectionRecord, slot: Slot, snapshot: SpreadsheetSnapshot): void {
    if (slot.recorded?.version === snapshot.version) {
      slot.unrecorded = false; // what failed to record was undone: the source is back at the recorded version
      return;
    }
    try {
      this.#onChange(connection, slot.recorded, snapshot);
    } catch (err) {
      slot.unrecorded = true;
      this.#recording.failed(err);
      throw err;
    }
    slot.recorded = snapshot;
    slot.unrecorded = false;
    this.#recording.succeeded();
  }
}

/** What a write whose change could not be recorded answers: 507 for a full data dir, else 500. */
function answerFor(cause: unknown, sourceKeptIt: boolean): AppError {
  if (cause instanceof AppError) return cause;
  if (isStorageFailure(cause)) {
    if (!sourceKeptIt) return insufficientStorage();
    return new AppError(
      'insufficient_storage',
      "SheetPort's data folder has no room to record this write, and the spreadsheet took it already; it is " +
        'recorded once there is room. Check the rows before retrying.',
    );
  }
  return new AppError(
    'internal_error',
    sourceKeptIt
      ? 'The write reached the spreadsheet but could not be recorded; it is recorded on a later look.'
      : 'The write could not be recorded, so it was not made.',
  );
}
