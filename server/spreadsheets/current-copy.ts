import { TurnMark } from '../lib/turn-mark.ts';
import { saveMayBeUnderWay } from '../sources/save-under-way.ts';
import type { Source, SpreadsheetSnapshot } from '../sources/source.ts';

/**
 * A spreadsheet's tabs as last read, served from memory. Before each read the source's cheap version token (a
 * file stat, a Drive version) is compared and the tabs are read again only when it moved. A write's snapshot
 * replaces the copy once the write is recorded, so it never shows an unwritten row. While a write is at the
 * source the copy is answered as it is, without asking the source: the source may hold the write already (the
 * file replaced) before it is recorded and answered, or be busy writing (a file's reads wait for its writes).
 * And while another program is most likely still saving it (its source says so, sources/save-under-way.ts),
 * the copy is answered as it is rather than the refusal of a half-written file.
 */
export class CurrentCopy {
  readonly source: Source;
  /** The newest snapshot held; null before the first read and after an undone write (read again). */
  snapshot: SpreadsheetSnapshot | null = null;
  /** The freshness check in flight, shared by every request that arrives meanwhile (one stat, not hundreds). */
  #check: Promise<SpreadsheetSnapshot> | null = null;
  /** Bumped by each replacement, so a slower read that began earlier never replaces a newer snapshot. */
  #generation = 0;
  /** A write is at the source (`whileWriting`): reads get `snapshot` as it is. */
  #writing = false;
  /**
   * Since when `snapshot` has been answered in place of a version another program is still saving (a save under
   * way): the copy is behind the source, and reads say so (`behindSince`). Null while it is the source's newest.
   */
  #behindSince: number | null = null;
  /**
   * The copy was found current in this turn of the event loop: the turn's other reads take it without asking
   * the source again (lib/turn-mark.ts). Dropped with the copy's every change.
   */
  readonly #checked = new TurnMark();

  constructor(source: Source) {
    this.source = source;
  }

  /** Since when (ms) reads have been answered from `snapshot` while the source holds a save under way; else null. */
  get behindSince(): number | null {
    return this.#behindSince;
  }

  /** Being read with nothing held yet: the first read (or the first after an undone write) is under way. */
  get reading(): boolean {
    return this.snapshot === null && this.#check !== null;
  }

  /** The copy, current as of the source's cheap version. */
  current(): Promise<SpreadsheetSnapshot> {
    if (this.#writing && this.snapshot) return Promise.resolve(this.snapshot);
    if (this.snapshot && this.#checked.held) return Promise.resolve(this.snapshot);
    if (!this.#check) {
      const check = this.#refresh().finally(() => {
        if (this.#check === check) this.#check = null;
      });
      this.#check = check;
    }
    return this.#check;
  }

  /**
   * The copy after asking the source, even when this turn's reads took it unasked: for whoever was told the
   * source may have changed (a file watch, a poll) or must see another instance's write.
   */
  checked(): Promise<SpreadsheetSnapshot> {
    this.#checked.clear();
    return this.current();
  }

  /** Run a write at the source: until it settles, reads are answered from the copy as it is (or as `replace`d). */
  async whileWriting<T>(write: () => Promise<T>): Promise<T> {
    this.#writing = true;
    try {
      return await write();
    } finally {
      this.#writing = false;
    }
  }

  /**
   * The source is known to be at `version` (null: at some other version than the copy's): unless the copy is of
   * it, the next read reads the source again. Ignored while a write is at the source: the write's own snapshot
   * follows.
   */
  outdated(version: string | null): void {
    if (this.#writing || !this.snapshot || this.snapshot.version === version) return;
    this.#generation++;
    this.#checked.clear();
    this.snapshot = null;
  }

  /** What the source answered a write with (or null: read it again, the source went back). */
  replace(snapshot: SpreadsheetSnapshot | null): void {
    this.#generation++;
    this.#checked.clear();
    this.snapshot = snapshot;
    this.#behindSince = null;
  }

  async #refresh(): Promise<SpreadsheetSnapshot> {
    const generation = this.#generation;
    const version = await this.source.version();
    if (this.snapshot && this.snapshot.version === version) {
      if (this.#generation === generation) {
        this.#checked.set();
        this.#behindSince = null;
      }
      return this.snapshot;
    }
    let snapshot: SpreadsheetSnapshot;
    try {
      snapshot = await this.source.read();
    } catch (e) {
      // Another program is most likely still saving it: its last version read whole, until the save is done.
      if (this.snapshot && this.#generation === generation && saveMayBeUnderWay(e)) {
        this.#behindSince ??= Date.now();
        return this.snapshot;
      }
      throw e;
    }
    if (this.#generation !== generation) return this.snapshot ?? snapshot; // a write overtook this read
    this.snapshot = snapshot;
    this.#behindSince = null;
    return snapshot;
  }
}
