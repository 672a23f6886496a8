import { AppError } from '../errors.ts';
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
} from '../sources/source.ts';
import type { ConnectionRecord } from '../store/connections.ts';

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
  readonly #slots = new Map<string, Slot>();

  constructor(
    openSource: (connection: ConnectionRecord) => Source,
    onChange: ChangeListener = () => {},
    log: (message: string, err?: unknown) => void = () => {},
  ) {
    this.#openSource = openSource;
    this.#onChange = onChange;
    this.#log = log;
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
    this.#record(connection, slot, slot.entry?.snapshot ?? entry.snapshot);
    return entry;
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
    // An outside change a read has loaded but nobody recorded yet is recorded on its own first, so it is not
    // merged into this write's changes.
    if (slot.entry) this.#record(connection, slot, slot.entry.snapshot);
    const result = await slot.source.write(sourceSheetId, mutations, options);
    slot.generation++;
    // The write was redone on a save made meanwhile by another program: that save is an outside change.
    if (result.before) this.#record(connection, slot, result.before);
    slot.entry = entryOf(result.snapshot);
    this.#record(connection, slot, result.snapshot);
    return result;
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
   * Hand a new snapshot to the change listener, once per version. A failure there (the database) must not turn
   * a write the source already has into an error answer, so it is logged instead.
   */
  #record(connection: ConnectionRecord, slot: Slot, snapshot: SpreadsheetSnapshot): void {
    if (slot.recorded?.version === snapshot.version) return;
    try {
      this.#onChange(connection, slot.recorded, snapshot);
      slot.recorded = snapshot;
    } catch (err) {
      this.#log('Recording a change failed', err);
    }
  }
}
