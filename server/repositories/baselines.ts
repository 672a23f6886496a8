/**
 * Baselines: the stored snapshot of each tab that a spreadsheet's first sight after a start is diffed against,
 * so changes made while SheetPort was stopped are found (docs/architecture.md, "Glossary"). Written only by
 * the change recording (change-log.ts), in the transaction that records the change.
 */
import type { CellValue } from '../sources/source.ts';

/** A tab's content as changes are found in it: name, header and typed rows (API row n is `typed[n-1]`). */
export interface TabContent {
  name: string;
  header: string[];
  typed: CellValue[][];
  /**
   * What the rows were read from, where that alone says what they hold (sources/read-identity.ts): a checkpoint
   * stores it, and a restart that reads the same takes the checkpoint as holding its rows without comparing them.
   */
  readIdentity?: string;
}

/** A tab as the recorder compares a new snapshot with: in-process content, or a baseline restored. */
export interface ComparedTab extends TabContent {
  /** The source version the content was read from: set for a baseline, null for in-process content. */
  sourceVersion: string | null;
}

/**
 * One row edit of a recorded change, positional, in the row diff's order (diff/row-diff.ts): a
 * deletion's `row` counts in the rows before the change, an insertion's or an update's in the rows after it.
 * A baseline keeps these after its last checkpoint, so a write stores only the rows it changed.
 */
export interface RowEdit {
  change: 'inserted' | 'updated' | 'deleted';
  /** 1-based API row number. */
  row: number;
  /** The row's cells after the change, in header order; null for a deletion. */
  cells: CellValue[] | null;
}

/** What a recording has read: the source's version and each tab's content, by source sheet id. */
export interface CurrentContent {
  version: string;
  tabs: ReadonlyMap<string, TabContent>;
}

export interface Baselines {
  /**
   * Every stored baseline of a spreadsheet, by source sheet id, restored from its own stored format. `current`:
   * what was just read, which a baseline stored from that very version and holding the same is restored as
   * (rules/baseline-restore.ts).
   */
  load(spreadsheetId: string, current?: CurrentContent): Promise<Map<string, ComparedTab>>;
}
