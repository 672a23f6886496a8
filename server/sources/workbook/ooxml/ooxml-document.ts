/**
 * An .xlsx file read and written surgically. Reading inflates only the parts a tab needs (workbook,
 * its rels, shared strings, styles, the tab's sheet). A write edits the parts it must as text (the tab's
 * sheet, styles when a new number format is needed, tables that move, the workbook's calc flags) and
 * `serialize` copies every other zip entry with its compressed bytes untouched, so charts, pivots, macros,
 * threaded comments and parts nobody knows survive: nothing makes such a file read-only.
 *
 * A façade: the package (ooxml-package.ts), the tab list (workbook-tabs.ts), the tabs held (held-tabs.ts,
 * read by tab-read.ts), a write (plan-apply.ts, recalc-after-write.ts) and the way out (package-serialize.ts).
 */
import type { ProgressReport } from '../../../lib/byte-progress.ts';
import type { DateTargets } from '../../date-cells.ts';
import type { WritePlan } from '../../plan.ts';
import type { TabSnapshot, WriteOptions } from '../../source.ts';
import type { GridLimits } from '../../tab.ts';
import type { PreparedForm, WorkbookDocument } from '../document.ts';
import { xlsxDateTargets } from './date-targets.ts';
import { warmFormulas } from './formula-warm.ts';
import { HeldTabs, type KnownTab } from './held-tabs.ts';
import { keptSheetsOf, takeKeptSheets } from './kept-sheets.ts';
import { OoxmlPackage } from './ooxml-package.ts';
import type { OpenWorkbook } from './open-workbook.ts';
import { serializePackage } from './package-serialize.ts';
import { endIdlePieceThreads } from './piece-threads.ts';
import { applyPlan } from './plan-apply.ts';
import type { ReadTab } from './tab-read.ts';
import { WorkbookTabs } from './workbook-tabs.ts';
import { ZipArchive } from './zip-archive.ts';

export type { KnownTab } from './held-tabs.ts';
export type { ReadTab } from './tab-read.ts';

export class OoxmlDocument implements WorkbookDocument {
  readonly #wb: OpenWorkbook;

  private constructor(archive: ZipArchive, limits: GridLimits | undefined, known: readonly KnownTab[]) {
    const pkg = new OoxmlPackage(archive);
    const book = new WorkbookTabs(pkg);
    const held = new HeldTabs({ pkg, book, limits }, known);
    this.#wb = { pkg, book, held, precedents: new Map(), limits };
  }

  /**
   * `known`: tabs already read from these very bytes (by the parse thread), so a write does not read them
   * again; any other tab is read here when first asked for.
   */
  static async parse(
    bytes: Uint8Array,
    limits?: GridLimits,
    known: readonly KnownTab[] = [],
  ): Promise<OoxmlDocument> {
    return new OoxmlDocument(ZipArchive.open(bytes), limits, known);
  }

  tab(sourceSheetId: string): TabSnapshot | undefined {
    return this.#wb.held.get(sourceSheetId);
  }

  tabs(): TabSnapshot[] {
    return this.#wb.held.all();
  }

  /**
   * Every tab read from the file as the parse thread sends it, with whether its sheet holds formulas (what
   * `parse(..., known)` takes back on the other side). `onProgress` hears how far the sheets' scan has come.
   */
  readTabs(onProgress?: ProgressReport): Promise<ReadTab[]> {
    return this.#wb.held.readFresh(onProgress);
  }

  /**
   * The tab's sheet read for editing off the service's thread, and, for a write about to be applied (not
   * `ahead`), its formulas looked over a slice at a time (formula-warm.ts), before `apply` needs them.
   */
  async prepare(sourceSheetId: string, options: { ahead?: boolean } = {}): Promise<void> {
    const tab = this.#wb.book.find(sourceSheetId);
    if (!tab) return;
    await this.#wb.pkg.loadSheet(tab.part);
    if (!options.ahead) await warmFormulas(this.#wb, sourceSheetId);
  }

  /**
   * The sheets prepared are from now on held only as their pieces: the file's bytes for them can go, and so can
   * the piece threads that cut them, which no write is waiting for.
   */
  releasePrepared(): boolean {
    endIdlePieceThreads();
    return this.#wb.pkg.releaseHeldSheets();
  }

  preparedForm(): PreparedForm | null {
    return keptSheetsOf(this.#wb.pkg);
  }

  takePreparedForm(payload: unknown): boolean {
    return takeKeptSheets(this.#wb.pkg, payload);
  }

  /** Which cells of a write to the tab show a number as a date (date-targets.ts); after `prepare`. */
  dateTargets(sourceSheetId: string): DateTargets | undefined {
    const tab = this.#wb.book.find(sourceSheetId);
    const snapshot = this.#wb.held.get(sourceSheetId);
    return tab && snapshot ? xlsxDateTargets(this.#wb, tab, snapshot) : undefined;
  }

  apply(sourceSheetId: string, plan: WritePlan, options: WriteOptions): Promise<void> {
    return applyPlan(this.#wb, sourceSheetId, plan, options);
  }

  makeLater(): void {
    this.#wb.held.makeLater();
  }

  serialize(): Promise<readonly Uint8Array[]> {
    return serializePackage(this.#wb.pkg);
  }
}
