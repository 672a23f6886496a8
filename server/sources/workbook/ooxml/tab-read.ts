/**
 * Reading tabs from their sheet parts into the tabs the service serves: each sheet scanned into a builder,
 * the formulas the file holds no result for computed (over every tab given, since they may read any), then
 * finished into encoded tabs within the grid limits.
 */
import { AppError } from '../../../errors.ts';
import type { ByteProgress } from '../../../lib/byte-progress.ts';
import { type GridLimits, GridTooLarge } from '../../tab.ts';
import type { EncodedTab } from '../encoded-tab.ts';
import { WorkbookEvaluator } from '../formulas/evaluator.ts';
import type { TableInfo } from '../formulas/structured-refs.ts';
import { PartTooLarge } from '../guard/zip-directory.ts';
import { decodeCellText } from '../ooxml-text.ts';
import type { ReadContext } from './cell-decode.ts';
import { inflatedChunks } from './inflated-chunks.ts';
import type { OoxmlPackage } from './ooxml-package.ts';
import { scanSheet, scanSheetChunks } from './sheet-scan.ts';
import { scanWithSaxes } from './sheet-scan-saxes.ts';
import { TabBuilder } from './tab-builder.ts';
import type { Tab, WorkbookTabs } from './workbook-tabs.ts';

/** A tab read from the file as the parse thread sends it (what `KnownTab` is made from on the other side). */
export interface ReadTab {
  encoded: EncodedTab;
  hasFormulas: boolean;
  uncomputed: boolean;
}

/** A tab's sheet scanned, not yet made into the tab the service serves. */
export interface Scan {
  tab: Tab;
  builder: TabBuilder;
  merges: string[];
}

/** What reading needs of the document: its package, its tabs and the limits a tab must keep within. */
export interface TabReader {
  pkg: OoxmlPackage;
  book: WorkbookTabs;
  limits: GridLimits | undefined;
}

export function scanTab(reader: TabReader, tab: Tab): Scan {
  const xml = reader.pkg.text(tab.part) ?? '';
  return scanned(tab, () => {
    // About 30 bytes of XML a cell in a typical sheet; the guess only sizes the first allocation.
    const builder = builderFor(reader, Math.ceil(xml.length / 30));
    return { builder, merges: scanSheet(xml, builder).merges };
  });
}

/**
 * `scanTab` as the part inflates: its chunks are scanned while the next ones inflate on the thread pool, and
 * the part is never whole in memory. A part the fast scanner leaves to the full XML parser is read whole then.
 */
export async function scanTabChunks(reader: TabReader, tab: Tab, progress?: ByteProgress): Promise<Scan> {
  const stored = storedPart(reader, tab);
  if (!stored) return scanTab(reader, tab);
  return scanned(tab, async () => {
    // Sized from the declared size, but never past what the packed bytes can plausibly hold (XML packs about
    // ten to one): a directory that declares gigabytes for a small part must not reserve that much up front.
    const builder = builderFor(reader, Math.ceil(Math.min(stored.size, stored.data.length * 16) / 30));
    const chunks = inflatedChunks(stored.data, stored.method, stored.size);
    const scan = await scanSheetChunks(progress ? counted(chunks, progress) : chunks, builder);
    if (scan) return { builder, merges: scan.merges };
    builder.reset();
    return { builder, merges: scanWithSaxes(reader.pkg.text(tab.part) ?? '', builder).merges };
  });
}

/** The chunks as they come, each counted on `progress`. */
async function* counted(chunks: AsyncIterable<Buffer>, progress: ByteProgress): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    progress.add(chunk.length);
    yield chunk;
  }
}

/** A tab's sheet part as the zip stores it; undefined when the part has been read whole already. */
function storedPart(reader: TabReader, tab: Tab) {
  return reader.pkg.texts.has(tab.part) ? undefined : reader.pkg.archive.compressed(tab.part);
}

/** The bytes a tab's scan goes through: its sheet part's declared size (0 for a part read whole already). */
export function scanBytes(reader: TabReader, tab: Tab): number {
  return storedPart(reader, tab)?.size ?? 0;
}

function builderFor(reader: TabReader, expectedCells: number): TabBuilder {
  const { pkg, book } = reader;
  const sst = pkg.sharedStrings();
  const ctx: ReadContext = {
    date1904: book.date1904,
    styles: pkg.styles(),
    sharedString: (index) => decodeCellText(sst[index] ?? ''),
  };
  return new TabBuilder(ctx, sst.length, expectedCells);
}

/** A tab's scan, with what goes wrong reading it said as the file's fault (a zip bomb's lie kept as it is). */
function scanned<T extends Omit<Scan, 'tab'>>(tab: Tab, read: () => T): Scan;
function scanned<T extends Omit<Scan, 'tab'>>(tab: Tab, read: () => Promise<T>): Promise<Scan>;
function scanned(tab: Tab, read: () => Omit<Scan, 'tab'> | Promise<Omit<Scan, 'tab'>>): Scan | Promise<Scan> {
  const failed = (e: unknown): never => {
    if (e instanceof PartTooLarge || e instanceof AppError) throw e;
    throw new AppError('upstream_error', `Could not read workbook: ${(e as Error).message}`);
  };
  try {
    const result = read();
    if (result instanceof Promise) return result.then((r) => ({ tab, ...r }), failed);
    return { tab, ...result };
  } catch (e) {
    return failed(e);
  }
}

/** The scanned tabs as the service serves them, with the formulas the file has no result for computed. */
export function finishTabs(reader: TabReader, scans: Scan[]): ReadTab[] {
  if (scans.some((s) => s.builder.formulaCells.anyUncached())) computeFormulas(reader, scans);
  // The cell limit holds for the tabs of one read together: their grids are all held at once.
  let cellsBefore = 0;
  return scans.map(({ tab, builder, merges }) => {
    try {
      const limits = reader.limits && { ...reader.limits, cellsBefore };
      const encoded = builder.finish(tab.entry.sheetId, tab.entry.name, merges, limits);
      if (encoded.columns > 0) cellsBefore += (encoded.rows + 1) * encoded.columns;
      return {
        encoded,
        hasFormulas: builder.formulas > 0,
        uncomputed: builder.formulaCells.anyUncached(),
      };
    } catch (e) {
      if (e instanceof GridTooLarge) throw e;
      throw new AppError('upstream_error', `Could not read workbook: ${(e as Error).message}`);
    }
  });
}

function computeFormulas(reader: TabReader, scans: Scan[]): void {
  const evaluator = new WorkbookEvaluator(
    scans.map((s) => s.builder.sheetCells(s.tab.entry.name)),
    reader.book.names,
    tableInfos(reader.pkg, reader.book),
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
export function tableInfos(pkg: OoxmlPackage, book: WorkbookTabs): TableInfo[] {
  return book.list.flatMap((tab) =>
    pkg.tablesOf(tab.part).flatMap((t) =>
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
