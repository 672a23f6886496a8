/**
 * The current version of each tab a document has read (or was handed, or a write produced), with what the
 * next write must know of its sheet: whether it holds formulas, and whether some have no result yet. A tab
 * is read when first asked for; when its formulas need computing, every tab is read, since they may read any.
 */

import { ByteProgress, type ProgressReport } from '../../../lib/byte-progress.ts';
import { type CellTab, decodeTab } from '../cell-tab.ts';
import type { LaterTab } from './simple-write-tab.ts';
import { finishTabs, type ReadTab, scanBytes, scanTab, scanTabChunks, type TabReader } from './tab-read.ts';

/** A tab read before, handed to the document so it is not read again. */
export interface KnownTab {
  tab: CellTab;
  hasFormulas: boolean;
  /** The sheet holds formulas without a result (uncomputed-results.ts). */
  uncomputed?: boolean;
}

export class HeldTabs {
  readonly #reader: TabReader;
  readonly #snapshots = new Map<string, CellTab>();
  /** Versions a write left to make when first asked for (`setLater`). */
  readonly #later = new Map<string, LaterTab>();
  /** Tabs whose sheet holds a formula (or got one from a write): their cached results may be stale. */
  readonly withFormulas = new Set<string>();
  /** Tabs whose sheet holds formulas without a result: the next write stores the held ones. */
  readonly uncomputed = new Set<string>();

  constructor(reader: TabReader, known: readonly KnownTab[]) {
    this.#reader = reader;
    for (const { tab, hasFormulas, uncomputed } of known) {
      this.#snapshots.set(tab.sourceSheetId, tab);
      if (hasFormulas) this.withFormulas.add(tab.sourceSheetId);
      if (uncomputed) this.uncomputed.add(tab.sourceSheetId);
    }
  }

  /** The tab's current version, read from its sheet on first use; undefined when no tab has that id. */
  get(sourceSheetId: string): CellTab | undefined {
    const cached = this.peek(sourceSheetId);
    if (cached) return cached;
    const tab = this.#reader.book.find(sourceSheetId);
    if (!tab) return undefined;
    let scans = [scanTab(this.#reader, tab)];
    // Formulas to compute may read any tab: then every tab is read, and kept.
    if (scans[0]!.builder.formulaCells.anyUncached())
      scans = this.#reader.book.list.map((t) => scanTab(this.#reader, t));
    for (const [i, read] of finishTabs(this.#reader, scans).entries()) {
      const id = scans[i]!.tab.entry.sheetId;
      if (this.#snapshots.has(id) || this.#later.has(id)) continue;
      this.#snapshots.set(id, decodeTab(read.encoded));
      if (read.hasFormulas) this.withFormulas.add(id);
      if (read.uncomputed) this.uncomputed.add(id);
    }
    return this.#snapshots.get(sourceSheetId);
  }

  /** Every tab in the workbook's order, each read if it was not yet. */
  all(): CellTab[] {
    return this.#reader.book.list.map((t) => this.get(t.entry.sheetId) as CellTab);
  }

  /** A tab read already (undefined if not), without reading it. */
  peek(sourceSheetId: string): CellTab | undefined {
    if (this.#later.has(sourceSheetId)) this.#make(sourceSheetId);
    return this.#snapshots.get(sourceSheetId);
  }

  /** A write's result: the tab's new version. */
  set(sourceSheetId: string, tab: CellTab): void {
    this.#later.delete(sourceSheetId);
    this.#snapshots.set(sourceSheetId, tab);
  }

  /**
   * A write's result made when first asked for: the copy of a large tab's rows can then be made while the
   * file is flushed (`makeLater`), not before the flush starts.
   */
  setLater(sourceSheetId: string, later: LaterTab): void {
    this.#snapshots.delete(sourceSheetId);
    this.#later.set(sourceSheetId, later);
  }

  /** Every version left to make, made now. */
  makeLater(): void {
    for (const id of [...this.#later.keys()]) this.#make(id);
  }

  #make(sourceSheetId: string): void {
    // Forgotten only once made: a failure leaves every later ask failing too, never the version before the write.
    const tab = this.#later.get(sourceSheetId)!();
    this.#later.delete(sourceSheetId);
    this.#snapshots.set(sourceSheetId, tab);
  }

  /**
   * Every tab read afresh from the sheets as they inflate, as the parse thread sends them (this object keeps
   * nothing). `onProgress` hears how much of the sheets' bytes has been scanned.
   */
  async readFresh(onProgress?: ProgressReport): Promise<ReadTab[]> {
    const tabs = this.#reader.book.list;
    const progress = onProgress
      ? new ByteProgress(
          tabs.reduce((sum, tab) => sum + scanBytes(this.#reader, tab), 0),
          onProgress,
        )
      : undefined;
    const scans = [];
    for (const tab of tabs) scans.push(await scanTabChunks(this.#reader, tab, progress));
    progress?.finish();
    return finishTabs(this.#reader, scans);
  }
}
