/**
 * The .xlsx package a document reads and edits: the zip archive, the text of every part a write changed
 * (the rest is read from the archive when asked for), the relationships that find parts, and the parts
 * kept parsed once read (sheets being edited, tables, styles, shared strings). Knows nothing of tabs.
 */
import { AppError } from '../../../errors.ts';
import { parseRels, type Relationship, relKind, relsNameOf } from './package-parts.ts';
import { readSharedStrings } from './shared-strings.ts';
import { SheetXml } from './sheet-xml.ts';
import { loadSheetXml } from './sheet-xml-load.ts';
import { StylesPart } from './styles-part.ts';
import { readTablePart, type TablePart } from './table-parts.ts';
import type { ZipArchive } from './zip-archive.ts';

export const CONTENT_TYPES = '[Content_Types].xml';

export class OoxmlPackage {
  #archive: ZipArchive;
  readonly workbookPart: string;
  /** The workbook's relationships, targets spelled as the zip entries are (a new styles part is added here). */
  readonly workbookRels: Relationship[];
  /** The workbook part's text as the file holds it (checked to be workbook XML). */
  readonly workbookXml: string;
  /** Current text of every part a write changed (or null: removed); the rest comes from the archive. */
  readonly texts = new Map<string, string | null>();
  readonly sheets = new Map<string, SheetXml>();
  readonly tables = new Map<string, TablePart>();
  #sharedStrings: string[] | undefined;
  #styles: StylesPart | undefined;

  constructor(archive: ZipArchive) {
    this.#archive = archive;
    const root = this.canonical(parseRels('', archive.text('_rels/.rels')));
    this.workbookPart =
      root.find((r) => relKind(r) === 'officeDocument' && !r.external)?.target ?? 'xl/workbook.xml';
    const workbookXml = archive.text(this.workbookPart);
    if (workbookXml === undefined) {
      throw new AppError('upstream_error', 'Could not read workbook: the package has no workbook part.');
    }
    // Without its root element the part is not a workbook: saying "no such tab" would hide the real problem.
    if (!/<([A-Za-z_][\w.-]*:)?workbook[\s>]/.test(workbookXml)) {
      throw new AppError('upstream_error', 'Could not read workbook: the workbook part is not workbook XML.');
    }
    this.workbookXml = workbookXml;
    this.workbookRels = this.canonical(
      parseRels(this.workbookPart, archive.text(this.partName(relsNameOf(this.workbookPart)))),
    );
  }

  get archive(): ZipArchive {
    return this.#archive;
  }

  /**
   * Lets the file's bytes go for the sheets held in pieces (a large file's write document, kept between writes):
   * every other part is kept in an archive of its own, and the sheets held are from now on always written from
   * their pieces (package-serialize.ts). About the file's size less in memory for a sheet of a million rows.
   * True when the archive no longer reads the bytes it was opened on (there was a sheet held).
   */
  releaseHeldSheets(): boolean {
    const held = new Set([...this.sheets.keys()].filter((part) => !this.texts.has(part)));
    if (held.size === 0) return false;
    this.#archive = this.#archive.withoutParts(held);
    return true;
  }

  /** Whether the sheet's only form is the one held: its bytes in the archive were let go. */
  onlyHeld(part: string): boolean {
    return this.#archive.entry(part)?.released === true;
  }

  /** Part names are case-insensitive (OPC): use the zip entry's own spelling, so a rewrite replaces it. */
  partName(name: string): string {
    return this.#archive.entry(name)?.name ?? name;
  }

  canonical(rels: Relationship[]): Relationship[] {
    return rels.map((r) => (r.external ? r : { ...r, target: this.partName(r.target) }));
  }

  /** The part's current text: as a write left it, else as the archive holds it. */
  text(part: string): string | undefined {
    if (this.texts.has(part)) return this.texts.get(part) ?? undefined;
    // A sheet whose bytes were let go is what its pieces hold (slow, and no write path needs it: a safety net).
    if (this.onlyHeld(part)) return this.sheets.get(part)?.toString();
    return this.#archive.text(part);
  }

  /** Replaces a part's text (null: the part is removed). */
  setText(part: string, text: string | null): void {
    this.texts.set(part, text);
  }

  /** The workbook's first internal relationship of a kind (`styles`, `sharedStrings`, `calcChain`). */
  relTarget(kind: string): string | undefined {
    return this.workbookRels.find((r) => relKind(r) === kind && !r.external)?.target;
  }

  /** A part's own relationships (a sheet's tables, comments, ...). */
  relsOf(part: string): Relationship[] {
    return this.canonical(parseRels(part, this.text(this.partName(relsNameOf(part)))));
  }

  sharedStrings(): string[] {
    if (!this.#sharedStrings) {
      const part = this.relTarget('sharedStrings');
      this.#sharedStrings = part === undefined ? [] : readSharedStrings(this.#archive.text(part));
    }
    return this.#sharedStrings;
  }

  styles(): StylesPart {
    if (!this.#styles) {
      const part = this.relTarget('styles');
      this.#styles = new StylesPart(part === undefined ? undefined : this.#archive.text(part));
    }
    return this.#styles;
  }

  /** The styles part when it has been read (and so may have been changed). */
  get stylesRead(): StylesPart | undefined {
    return this.#styles;
  }

  /**
   * The sheet part read for editing without holding the service (sheet-xml-load.ts), unless held already;
   * a write calls this first, and `sheetXml` then finds it.
   */
  async loadSheet(part: string): Promise<void> {
    if (this.sheets.has(part) || this.texts.has(part)) return;
    const stored = this.#archive.compressed(part);
    if (!stored) return;
    const sheet = await loadSheetXml(stored.data, stored.method, stored.size);
    if (sheet && !this.sheets.has(part)) this.sheets.set(part, sheet);
  }

  /** A sheet part held for editing, read on first use. */
  sheetXml(part: string): SheetXml {
    let sheet = this.sheets.get(part);
    if (!sheet) {
      // A sheet whose bytes were let go is never let go of itself (package-serialize.ts): reading it as empty
      // would write it so.
      if (this.onlyHeld(part)) throw new Error(`the sheet "${part}" was let go`);
      sheet = new SheetXml(this.text(part) ?? '');
      this.sheets.set(part, sheet);
    }
    return sheet;
  }

  /** A sheet's Excel tables, each read once and then kept (a write may move them). */
  tablesOf(part: string): TablePart[] {
    return this.relsOf(part)
      .filter((r) => relKind(r) === 'table' && !r.external && this.#archive.has(r.target))
      .map((r) => {
        let table = this.tables.get(r.target);
        if (!table) {
          table = readTablePart(r.target, this.text(r.target) ?? '');
          this.tables.set(r.target, table);
        }
        return table;
      });
  }
}
