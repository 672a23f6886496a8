/**
 * An .xlsx file read and written surgically. Reading inflates only the parts a tab needs (workbook,
 * its rels, shared strings, styles, the tab's sheet). A write edits the parts it must as text (the tab's
 * sheet, styles when a new number format is needed, tables that move, the workbook's calc flags) and
 * `serialize` copies every other zip entry with its compressed bytes untouched, so charts, pivots, macros,
 * threaded comments and parts nobody knows survive: nothing makes such a file read-only.
 */
import path from 'node:path';
import { AppError } from '../../../errors.ts';
import type { WritePlan } from '../../plan.ts';
import type { TabSnapshot, WriteOptions } from '../../source.ts';
import { type GridLimits, GridTooLarge } from '../../tab.ts';
import { displayText, FormatTable } from '../cell-format.ts';
import { type CellTab, decodeTab, type EncodedTab, Kind } from '../cell-tab.ts';
import type { WorkbookDocument } from '../document.ts';
import { type DefinedName, WorkbookEvaluator } from '../formulas/evaluator.ts';
import { shiftFormula } from '../formulas/formula-text.ts';
import type { TableInfo } from '../formulas/structured-refs.ts';
import { decodeCellText } from '../ooxml-text.ts';
import { RowMap } from '../row-map.ts';
import type { Precompressed } from './chunked-deflate.ts';
import { editedTab, type ReadRow, shiftHeaderFormulas } from './edited-tab.ts';
import {
  addOverride,
  addRelationship,
  parseRels,
  type Relationship,
  relKind,
  relsNameOf,
  removeOverrides,
  removeRelsTo,
} from './package-parts.ts';
import { type PrecedentsMemo, type RecalcTab, recalculate, type Spans } from './recalculation.ts';
import type { ScannedCell } from './scanned-cell.ts';
import { readSharedStrings } from './shared-strings.ts';
import { applyPlanToSheet, type SheetRowChanges } from './sheet-edit.ts';
import type { SheetEdit } from './sheet-edit-target.ts';
import { scanSheet } from './sheet-scan.ts';
import { SheetXml } from './sheet-xml.ts';
import { STYLES_CONTENT_TYPE, STYLES_REL_TYPE, StylesPart } from './styles-part.ts';
import { type DecodedCell, decodeCell, mergeCover, type ReadContext, TabBuilder } from './tab-builder.ts';
import { readTablePart, type TablePart } from './table-parts.ts';
import { cacheUncomputedResults } from './uncomputed-results.ts';
import { readWorkbookInfo, type SheetEntry, type WorkbookInfo, withFullCalcOnLoad } from './workbook-part.ts';
import { ZipArchive } from './zip-archive.ts';
import { writeZip } from './zip-writer.ts';

const CONTENT_TYPES = '[Content_Types].xml';
const MAX_ROW = 1_048_576;

function definedNames(info: WorkbookInfo): DefinedName[] {
  return info.names.map(({ name, formula, localSheetId }) => ({
    name,
    formula,
    ...(localSheetId === undefined ? {} : { sheet: info.sheets[localSheetId]?.name ?? '' }),
  }));
}

/** A tab read before, handed to `parse` so it is not read again. */
export interface KnownTab {
  tab: CellTab;
  hasFormulas: boolean;
  /** The sheet holds formulas without a result (uncomputed-results.ts). */
  uncomputed?: boolean;
}

const MERGE_REF = /<(?:[A-Za-z_][\w.-]*:)?mergeCell\b[^>]*?\bref\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const mergesIn = (tail: string) => [...tail.matchAll(MERGE_REF)].map((m) => m[1] ?? m[2] ?? '');
const EMPTY_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';

interface Tab {
  entry: SheetEntry;
  part: string;
}

/** A tab read from the file as the parse thread sends it (what `KnownTab` is made from on the other side). */
export interface ReadTab {
  encoded: EncodedTab;
  hasFormulas: boolean;
  uncomputed: boolean;
}

/** A tab's sheet scanned, not yet made into the tab the service serves. */
interface Scan {
  tab: Tab;
  builder: TabBuilder;
  merges: string[];
}

export class OoxmlDocument implements WorkbookDocument {
  readonly #archive: ZipArchive;
  readonly #workbookPart: string;
  readonly #workbookRels: Relationship[];
  readonly #tabList: Tab[];
  readonly #date1904: boolean;
  readonly #names: DefinedName[];
  /** Current text of every part a write changed (or null: removed); the rest comes from the archive. */
  readonly #texts = new Map<string, string | null>();
  readonly #sheets = new Map<string, SheetXml>();
  readonly #tables = new Map<string, TablePart>();
  /** The current version of each tab read so far (given by the caller, or read here). */
  readonly #snapshots = new Map<string, CellTab>();
  /** Tabs whose sheet holds a formula (or got one from a write): their cached results may be stale. */
  readonly #withFormulas = new Set<string>();
  /** Tabs whose sheet holds formulas without a result: the next write stores the held ones. */
  readonly #uncomputed = new Set<string>();
  /** What each formula text reads, worked out once (recalculation.ts). */
  readonly #precedents: PrecedentsMemo = new Map();
  #sharedStrings: string[] | undefined;
  #styles: StylesPart | undefined;

  readonly #limits: GridLimits | undefined;

  private constructor(archive: ZipArchive, limits: GridLimits | undefined, known: readonly KnownTab[]) {
    this.#archive = archive;
    this.#limits = limits;
    for (const { tab, hasFormulas, uncomputed } of known) {
      this.#snapshots.set(tab.sourceSheetId, tab);
      if (hasFormulas) this.#withFormulas.add(tab.sourceSheetId);
      if (uncomputed) this.#uncomputed.add(tab.sourceSheetId);
    }
    const root = this.#canonical(parseRels('', archive.text('_rels/.rels')));
    this.#workbookPart =
      root.find((r) => relKind(r) === 'officeDocument' && !r.external)?.target ?? 'xl/workbook.xml';
    const workbookXml = archive.text(this.#workbookPart);
    if (workbookXml === undefined) {
      throw new AppError('upstream_error', 'Could not read workbook: the package has no workbook part.');
    }
    // Without its root element the part is not a workbook: saying "no such tab" would hide the real problem.
    if (!/<([A-Za-z_][\w.-]*:)?workbook[\s>]/.test(workbookXml)) {
      throw new AppError('upstream_error', 'Could not read workbook: the workbook part is not workbook XML.');
    }
    this.#workbookRels = this.#canonical(
      parseRels(this.#workbookPart, archive.text(this.#partName(relsNameOf(this.#workbookPart)))),
    );
    const info = readWorkbookInfo(workbookXml);
    this.#date1904 = info.date1904;
    this.#names = definedNames(info);
    this.#tabList = [];
    for (const entry of info.sheets) {
      const rel = this.#workbookRels.find((r) => r.id === entry.relId);
      // Chart sheets, dialog sheets and macro sheets hold no rows: they are not tabs the service serves.
      if (!rel || rel.external || relKind(rel) !== 'worksheet' || !archive.has(rel.target)) continue;
      this.#tabList.push({ entry, part: archive.entry(rel.target)?.name as string });
    }
  }

  /** Part names are case-insensitive (OPC): use the zip entry's own spelling, so a rewrite replaces it. */
  #partName(name: string): string {
    return this.#archive.entry(name)?.name ?? name;
  }

  #canonical(rels: Relationship[]): Relationship[] {
    return rels.map((r) => (r.external ? r : { ...r, target: this.#partName(r.target) }));
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

  #text(part: string): string | undefined {
    if (this.#texts.has(part)) return this.#texts.get(part) ?? undefined;
    return this.#archive.text(part);
  }

  #setText(part: string, text: string | null): void {
    this.#texts.set(part, text);
  }

  #relTarget(kind: string): string | undefined {
    return this.#workbookRels.find((r) => relKind(r) === kind && !r.external)?.target;
  }

  #sharedStringsList(): string[] {
    if (!this.#sharedStrings) {
      const part = this.#relTarget('sharedStrings');
      this.#sharedStrings = part === undefined ? [] : readSharedStrings(this.#archive.text(part));
    }
    return this.#sharedStrings;
  }

  #readContext(): ReadContext {
    const strings = this.#sharedStringsList();
    return {
      date1904: this.#date1904,
      styles: this.#stylesPart(),
      sharedString: (index) => decodeCellText(strings[index] ?? ''),
    };
  }

  #stylesPart(): StylesPart {
    if (!this.#styles) {
      const part = this.#relTarget('styles');
      this.#styles = new StylesPart(part === undefined ? undefined : this.#archive.text(part));
    }
    return this.#styles;
  }

  #find(sourceSheetId: string): Tab | undefined {
    return this.#tabList.find((t) => t.entry.sheetId === sourceSheetId);
  }

  tab(sourceSheetId: string): TabSnapshot | undefined {
    const cached = this.#snapshots.get(sourceSheetId);
    if (cached) return cached;
    const tab = this.#find(sourceSheetId);
    if (!tab) return undefined;
    let scans = [this.#scan(tab)];
    // Formulas to compute may read any tab: then every tab is read, and kept.
    if (scans[0]!.builder.formulaCells.anyUncached()) scans = this.#tabList.map((t) => this.#scan(t));
    for (const [i, read] of this.#finishAll(scans).entries()) {
      const id = scans[i]!.tab.entry.sheetId;
      if (this.#snapshots.has(id)) continue;
      this.#snapshots.set(id, decodeTab(read.encoded));
      if (read.hasFormulas) this.#withFormulas.add(id);
      if (read.uncomputed) this.#uncomputed.add(id);
    }
    return this.#snapshots.get(sourceSheetId);
  }

  tabs(): TabSnapshot[] {
    return this.#tabList.map((t) => this.tab(t.entry.sheetId) as TabSnapshot);
  }

  /**
   * Every tab read from the file as the parse thread sends it, with whether its sheet holds formulas (what
   * `parse(..., known)` takes back on the other side).
   */
  readTabs(): ReadTab[] {
    return this.#finishAll(this.#tabList.map((tab) => this.#scan(tab)));
  }

  #scan(tab: Tab): Scan {
    const sst = this.#sharedStringsList();
    const xml = this.#text(tab.part) ?? '';
    // About 30 characters of XML a cell in a typical sheet; the guess only sizes the first allocation.
    const builder = new TabBuilder(this.#readContext(), sst.length, Math.ceil(xml.length / 30));
    try {
      return { tab, builder, merges: scanSheet(xml, builder).merges };
    } catch (e) {
      throw new AppError('upstream_error', `Could not read workbook: ${(e as Error).message}`);
    }
  }

  /** The scanned tabs as the service serves them, with the formulas the file has no result for computed. */
  #finishAll(scans: Scan[]): ReadTab[] {
    if (scans.some((s) => s.builder.formulaCells.anyUncached())) this.#computeFormulas(scans);
    return scans.map(({ tab, builder, merges }) => {
      try {
        return {
          encoded: builder.finish(tab.entry.sheetId, tab.entry.name, merges, this.#limits),
          hasFormulas: builder.formulas > 0,
          uncomputed: builder.formulaCells.anyUncached(),
        };
      } catch (e) {
        if (e instanceof GridTooLarge) throw e;
        throw new AppError('upstream_error', `Could not read workbook: ${(e as Error).message}`);
      }
    });
  }

  #computeFormulas(scans: Scan[]): void {
    const evaluator = new WorkbookEvaluator(
      scans.map((s) => s.builder.sheetCells(s.tab.entry.name)),
      this.#names,
      this.#tableInfos(),
    );
    for (const { tab, builder } of scans) {
      const f = builder.formulaCells;
      for (let i = 0; i < f.length; i++) {
        if (f.cached[i]) continue;
        const result = evaluator.result(tab.entry.name, f.rows[i]!, f.columns[i]!);
        if (result) builder.addComputed(f.rows[i]!, f.columns[i]!, f.styles[i]!, result);
      }
    }
  }

  /** Every tab's Excel tables, as structured references name them. */
  #tableInfos(): TableInfo[] {
    return this.#tabList.flatMap((tab) =>
      this.#tablesOf(tab.part).flatMap((t) =>
        t.area
          ? [
              {
                name: t.name,
                sheet: tab.entry.name,
                area: t.area,
                headerRow: t.headerRow,
                totalsRow: t.totalsRow,
                columns: t.columns,
              },
            ]
          : [],
      ),
    );
  }

  /** One row of a sheet as this document now holds it (merged non-anchor cells empty), for `editedTab`. */
  #readRow(sheet: SheetXml, number: number, old: CellTab): ReadRow | null {
    const slot = sheet.row(number);
    if (!slot) return null;
    const covered = mergeCover(mergesIn(sheet.tail));
    const formats = new FormatTable(old.formats);
    const ctx: ReadContext = {
      date1904: this.#date1904,
      styles: this.#stylesPart(),
      sharedString: (index) => old.shared.get(index),
    };
    const row: ReadRow = { values: [], codes: [], texts: [], formulas: [] };
    const decoded: DecodedCell = { kind: Kind.Empty, number: 0, text: '', code: 0 };
    const p = sheet.prefix;
    const oldWidth = old.header.length;
    scanSheet(`<${p}sheetData>${slot.xml}</${p}sheetData>`, {
      cell: (cell: ScannedCell) => {
        if (covered(number, cell.column)) return;
        const c = cell.column - 1;
        if (cell.formula !== undefined && cell.formulaType !== 'dataTable') {
          // A shared formula's dependent has no text of its own: it read as before (same row, same column).
          row.formulas[c] =
            cell.formula !== ''
              ? cell.formula
              : old.formulas.get((number - old.headerRow - 1) * oldWidth + c);
        }
        if (!decodeCell(cell, ctx, formats, decoded)) return;
        const value =
          decoded.kind === Kind.Number
            ? decoded.number
            : decoded.kind === Kind.Boolean
              ? decoded.number === 1
              : decoded.text;
        while (row.values.length < c) {
          row.values.push(null);
          row.codes.push(0);
          row.texts.push('');
        }
        row.values[c] = value;
        row.codes[c] = decoded.code;
        row.texts[c] = displayText(value, decoded.code, formats.formats);
      },
      reset: () => {
        row.values = [];
        row.codes = [];
        row.texts = [];
        row.formulas = [];
      },
    });
    return row;
  }

  #sheetXml(part: string): SheetXml {
    let sheet = this.#sheets.get(part);
    if (!sheet) {
      sheet = new SheetXml(this.#text(part) ?? '');
      this.#sheets.set(part, sheet);
    }
    return sheet;
  }

  #sheetRels(part: string): Relationship[] {
    return this.#canonical(parseRels(part, this.#text(this.#partName(relsNameOf(part)))));
  }

  #tablesOf(part: string): TablePart[] {
    return this.#sheetRels(part)
      .filter((r) => relKind(r) === 'table' && !r.external && this.#archive.has(r.target))
      .map((r) => {
        let table = this.#tables.get(r.target);
        if (!table) {
          table = readTablePart(r.target, this.#text(r.target) ?? '');
          this.#tables.set(r.target, table);
        }
        return table;
      });
  }

  apply(sourceSheetId: string, plan: WritePlan, options: WriteOptions): void {
    const tab = this.#find(sourceSheetId);
    this.tab(sourceSheetId);
    const snapshot = this.#snapshots.get(sourceSheetId);
    if (!tab || !snapshot) throw new AppError('sheet_not_found', `No tab with id ${sourceSheetId}`);
    const edit: SheetEdit = {
      sheet: this.#sheetXml(tab.part),
      sheetName: tab.entry.name,
      tables: this.#tablesOf(tab.part),
      styles: this.#stylesPart(),
      date1904: this.#date1904,
      otherSheets: () =>
        this.#tabList
          .filter((t) => t !== tab)
          .map((t) => ({ name: t.entry.name, sheet: this.#sheetXml(t.part) })),
      sideParts: (kind) =>
        this.#sheetRels(tab.part)
          .filter((r) => relKind(r) === kind && !r.external)
          .map((r) => ({
            part: r.target,
            get: () => this.#text(r.target),
            set: (text: string) => this.#setText(r.target, text),
          })),
      workbookXml: {
        get: () => this.#text(this.#workbookPart) ?? '',
        set: (text: string) => this.#setText(this.#workbookPart, text),
      },
    };
    const result = applyPlanToSheet(edit, snapshot, plan, options);
    if (!result.changed) return;
    const sheet = edit.sheet;
    const deleted = result.rows.deleted.length > 0 ? new RowMap(result.rows.deleted) : undefined;
    const sheetName = tab.entry.name;
    this.#snapshots.set(
      sourceSheetId,
      editedTab(
        snapshot,
        result.rows,
        (row) => this.#readRow(sheet, row, snapshot),
        deleted && ((text) => shiftFormula(text, { sheetName, onSameSheet: true, rows: deleted })),
      ),
    );
    if (deleted) this.#shiftOtherTabsFormulas(tab, deleted);
    if (result.formulas) this.#withFormulas.add(sourceSheetId);
    if (this.#withFormulas.size > 0) this.#recalculate(tab, result.rows, deleted);
    if (this.#uncomputed.size > 0) this.#cacheUncomputed();
    this.#markRecalculation(this.#withFormulas.has(sourceSheetId));
  }

  /** Formulas the file holds without a result get the held ones (uncomputed-results.ts), once. */
  #cacheUncomputed(): void {
    this.tabs();
    for (const t of this.#tabList) {
      const id = t.entry.sheetId;
      if (!this.#uncomputed.delete(id)) continue;
      const snapshot = this.#snapshots.get(id);
      if (snapshot) cacheUncomputedResults(this.#sheetXml(t.part), snapshot, this.#date1904);
    }
  }

  /** Other tabs' formulas pointing below deleted rows now read differently (the delete rewrote them). */
  #shiftOtherTabsFormulas(written: Tab, rows: RowMap): void {
    const ctx = { sheetName: written.entry.name, onSameSheet: false, rows };
    for (const other of this.#tabList) {
      const snapshot = this.#snapshots.get(other.entry.sheetId);
      if (other === written || !snapshot) continue;
      if (snapshot.formulas.size === 0 && snapshot.headerFormulas.size === 0) continue;
      const formulas = new Map<number, string>();
      for (const [at, text] of snapshot.formulas) formulas.set(at, shiftFormula(text, ctx));
      const header = shiftHeaderFormulas(snapshot.headerFormulas, (text) => shiftFormula(text, ctx));
      this.#snapshots.set(other.entry.sheetId, snapshot.withFormulaTexts(formulas, header));
    }
  }

  /** The formulas the write reached computed again, their results cached in the sheets and in the tabs. */
  #recalculate(written: Tab, rows: SheetRowChanges, deleted: RowMap | undefined): void {
    this.tabs();
    const changed: Spans = [];
    for (const row of rows.updated) {
      const now = deleted ? deleted.row(row) : row;
      if (now !== null) changed.push([now, now]);
    }
    for (const row of [...rows.appended, ...rows.cleared]) changed.push([row, row]);
    if (rows.newHeader) changed.push([1, 1]);
    if (deleted) changed.push([Math.min(...rows.deleted), MAX_ROW]);
    const tabs: RecalcTab[] = this.#tabList.map((t) => ({
      name: t.entry.name,
      snapshot: this.#snapshots.get(t.entry.sheetId) as CellTab,
      sheet: () => this.#sheetXml(t.part),
    }));
    const info = readWorkbookInfo(this.#text(this.#workbookPart) ?? '');
    const rewritten = recalculate({
      tabs,
      changed: new Map([[written.entry.name.toLowerCase(), changed]]),
      names: definedNames(info),
      tables: this.#tableInfos(),
      date1904: this.#date1904,
      precedents: this.#precedents,
    });
    for (const [tab, rowList] of rewritten) {
      const t = this.#tabList.find((x) => x.entry.name === tab.name) as Tab;
      const sheet = this.#sheetXml(t.part);
      const changes: SheetRowChanges = {
        updated: [...new Set(rowList)],
        deleted: [],
        cleared: [],
        newHeader: false,
        header: rowList.includes(tab.snapshot.headerRow),
        appended: [],
      };
      this.#snapshots.set(
        t.entry.sheetId,
        editedTab(tab.snapshot, changes, (row) => this.#readRow(sheet, row, tab.snapshot)),
      );
    }
  }

  /** Cached formula results may be stale now: Excel recalculates on open, and calcChain would be wrong. */
  #markRecalculation(formulasTouched: boolean): void {
    const calcChain = this.#relTarget('calcChain');
    const hasCalcChain =
      calcChain !== undefined && this.#archive.has(calcChain) && this.#texts.get(calcChain) !== null;
    if (!hasCalcChain && !formulasTouched) return;
    const workbook = this.#text(this.#workbookPart) ?? '';
    const flagged = withFullCalcOnLoad(workbook);
    if (flagged !== workbook) this.#setText(this.#workbookPart, flagged);
    if (!hasCalcChain || calcChain === undefined) return;
    const removed = new Set([calcChain]);
    this.#setText(calcChain, null);
    const relsName = this.#partName(relsNameOf(this.#workbookPart));
    const rels = this.#text(relsName);
    if (rels !== undefined) this.#setText(relsName, removeRelsTo(rels, this.#workbookPart, removed));
    const types = this.#text(CONTENT_TYPES);
    if (types !== undefined) this.#setText(CONTENT_TYPES, removeOverrides(types, removed));
  }

  async serialize(): Promise<readonly Uint8Array[]> {
    const changes = new Map<string, Uint8Array | Precompressed | null>();
    // First: adding a styles part also edits the workbook's rels and the content types.
    if (this.#styles?.changed) {
      const styles = this.#relTarget('styles') ?? this.#addStylesPart();
      changes.set(styles, Buffer.from(this.#styles.xml, 'utf8'));
    }
    for (const [part, text] of this.#texts)
      changes.set(part, text === null ? null : Buffer.from(text, 'utf8'));
    for (const [part, sheet] of this.#sheets) {
      // A sheet no write changed is the archive's text: let it go (it is read again if an edit needs it).
      if (!sheet.changed) this.#sheets.delete(part);
      else changes.set(part, sheet.compress());
    }
    for (const table of this.#tables.values())
      if (table.changed) changes.set(table.part, Buffer.from(table.xml, 'utf8'));
    return writeZip(this.#archive, changes);
  }

  /**
   * A workbook saved without a styles part (some generators omit it) gets one when a write first needs a
   * number format: the part, its relationship from the workbook and its content type.
   */
  #addStylesPart(): string {
    const dir = path.posix.dirname(this.#workbookPart);
    let part = path.posix.join(dir, 'styles.xml');
    for (let n = 2; this.#archive.has(part) || this.#texts.has(part); n++)
      part = path.posix.join(dir, `styles${n}.xml`);
    const relsName = this.#partName(relsNameOf(this.#workbookPart));
    const rels = this.#text(relsName) ?? EMPTY_RELS;
    const withRel = addRelationship(rels, STYLES_REL_TYPE, path.posix.relative(dir, part));
    this.#setText(relsName, withRel);
    this.#workbookRels.push(...parseRels(this.#workbookPart, withRel).filter((r) => r.target === part));
    const types = this.#text(CONTENT_TYPES);
    if (types !== undefined) this.#setText(CONTENT_TYPES, addOverride(types, part, STYLES_CONTENT_TYPE));
    return part;
  }
}
