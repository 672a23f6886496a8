import type { Source, SpreadsheetSnapshot } from '../sources/source.ts';

/**
 * A spreadsheet's tabs as last read, served from memory. Before each read the source's cheap version token (a
 * file stat, a Drive version) is compared and the tabs are read again only when it moved. A write's snapshot
 * replaces the copy, so it never shows an unwritten row.
 */
export class CurrentCopy {
  readonly source: Source;
  /** The newest snapshot held; null before the first read and after an undone write (read again). */
  snapshot: SpreadsheetSnapshot | null = null;
  /** The freshness check in flight, shared by every request that arrives meanwhile (one stat, not hundreds). */
  #check: Promise<SpreadsheetSnapshot> | null = null;
  /** Bumped by each replacement, so a slower read that began earlier never replaces a newer snapshot. */
  #generation = 0;

  constructor(source: Source) {
    this.source = source;
  }

  /** The copy, current as of the source's cheap version. */
  current(): Promise<SpreadsheetSnapshot> {
    if (!this.#check) {
      const check = this.#refresh().finally(() => {
        if (this.#check === check) this.#check = null;
      });
      this.#check = check;
    }
    return this.#check;
  }

  /** What the source answered a write with (or null: read it again, the source went back). */
  replace(snapshot: SpreadsheetSnapshot | null): void {
    this.#generation++;
    this.snapshot = snapshot;
  }

  async #refresh(): Promise<SpreadsheetSnapshot> {
    const generation = this.#generation;
    const version = await this.source.version();
    if (this.snapshot && this.snapshot.version === version) return this.snapshot;
    const snapshot = await this.source.read();
    if (this.#generation !== generation) return this.snapshot ?? snapshot; // a write overtook this read
    this.snapshot = snapshot;
    return snapshot;
  }
}
