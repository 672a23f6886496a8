/**
 * The engines of the workbook kind: the reader/writer of each file type it opens, chosen by extension. The
 * parse worker looks an engine up by name here, so an engine can change without touching the guards around it.
 *
 * A file is read in the parse thread and used in the service's thread: each engine says what its read sends
 * across (`readOffThread`, with the buffers that move instead of being copied) and what the service makes of it
 * (`received`): the tabs, and how a write gets its document from the same bytes without reading them again.
 */

import type { ProgressReport } from '../../lib/byte-progress.ts';
import { type WorkbookExtension, workbookExtension } from '../../lib/workbook-file-types.ts';
import type { CellLimits, Mutation, TabSnapshot, WriteOptions } from '../source.ts';
import type { GridLimits } from '../tab.ts';
import { decodeTab } from './cell-tab.ts';
import { assertCsvKeepsText, receivedCsv } from './csv.ts';
import { type CsvRead, transferablesOfCsvRead } from './csv-read.ts';
import { readCsvSplit } from './csv-read-split.ts';
import type { DocumentParser } from './document.ts';
import { transferablesOf } from './encoded-tab.ts';
import { EXCEL_MAX_CELL_CHARS, EXCEL_MAX_COLUMNS, EXCEL_MAX_ROWS } from './excel-grid.ts';
import { type KnownTab, OoxmlDocument, type ReadTab } from './ooxml/ooxml-document.ts';

/** `xlsx`: the OOXML engine, for every zip-packaged workbook (`.xlsx` and `.xlsm`). */
export type EngineName = 'xlsx' | 'csv';

/** The engine that reads each workbook extension (lib/workbook-file-types.ts holds the list). */
const ENGINE_OF: Record<WorkbookExtension, EngineName> = { '.xlsx': 'xlsx', '.xlsm': 'xlsx', '.csv': 'csv' };

/** Excel's own limits: 32,767 characters in a cell, 1,048,576 rows and 16,384 columns (A..XFD) in a sheet. */
const EXCEL_LIMITS: CellLimits = {
  maxCellChars: EXCEL_MAX_CELL_CHARS,
  maxColumns: EXCEL_MAX_COLUMNS,
  maxRows: EXCEL_MAX_ROWS,
};

/**
 * A `.csv` file has no limit of its own, but Excel, which is what opens it, reads at most Excel's rows and
 * columns of it: a write keeps the file within them so it still opens whole.
 */
const CSV_LIMITS: CellLimits = EXCEL_LIMITS;

/** What a read sends from the parse thread. */
export interface OffThreadRead {
  payload: unknown;
  transfer: ArrayBuffer[];
}

/** A read as the service holds it: the tabs, and how a write gets its document. */
export interface ReceivedRead {
  tabs: TabSnapshot[];
  /**
   * The document a write edits, parsed in the service's thread from the very bytes that were read: the tabs
   * read are taken over, not read again.
   */
  documentFor: DocumentParser;
}

export interface WorkbookEngine {
  name: EngineName;
  /** A zip package (OOXML): its central directory and inflated sizes are checked before parsing. */
  zipPackage: boolean;
  /** Whether a large file's write document is prepared behind its read (document-ahead.ts): an .xlsx's sheets are
   * cut into compressed pieces, seconds at a million rows; a CSV's document is its bytes, nothing to prepare. */
  prepareAhead: boolean;
  /** What a cell, a row and a tab of this file type hold; writes past them are refused (cell-rules.ts,
   * sheet-limits.ts). */
  limits: CellLimits;
  /** `onProgress` hears how far a long read has come, where the engine can tell (the sheets' bytes scanned). */
  readOffThread(
    bytes: Uint8Array,
    fileName: string,
    limits: GridLimits,
    onProgress?: ProgressReport,
  ): Promise<OffThreadRead>;
  received(payload: unknown): ReceivedRead | Promise<ReceivedRead>;
  /** What this file type cannot store beyond the cell limits, refused (400) before anything is written. */
  assertStorable?(mutations: readonly Mutation[], options: WriteOptions): void;
}

interface XlsxPayload {
  tabs: ReadTab[];
}

const ENGINES: Record<EngineName, WorkbookEngine> = {
  xlsx: {
    name: 'xlsx',
    zipPackage: true,
    prepareAhead: true,
    limits: EXCEL_LIMITS,
    async readOffThread(bytes, _fileName, limits, onProgress) {
      const tabs = await (await OoxmlDocument.parse(bytes, limits)).readTabs(onProgress);
      const payload: XlsxPayload = { tabs };
      return { payload, transfer: tabs.flatMap((t) => transferablesOf(t.encoded)) };
    },
    received(payload) {
      const known: KnownTab[] = [];
      for (const t of (payload as XlsxPayload).tabs) {
        // Its rows are made behind its first answers: a million rows take a second of this thread.
        known.push({
          tab: decodeTab(t.encoded),
          hasFormulas: t.hasFormulas,
          uncomputed: t.uncomputed,
        });
      }
      return {
        tabs: known.map((k) => k.tab),
        documentFor: (bytes, _fileName, limits) => OoxmlDocument.parse(bytes, limits, known),
      };
    },
  },
  csv: {
    name: 'csv',
    zipPackage: false,
    prepareAhead: false,
    limits: CSV_LIMITS,
    async readOffThread(bytes, fileName, limits, onProgress) {
      const read = await readCsvSplit(bytes, fileName, limits, onProgress);
      return { payload: read, transfer: transferablesOfCsvRead(read) };
    },
    received: (payload) => receivedCsv(payload as CsvRead),
    assertStorable: assertCsvKeepsText,
  },
};

/** The engine of a workbook extension (`.xlsx`, `.xlsm`, `.csv`, any case); undefined for any other. */
export function engineForExtension(ext: string): WorkbookEngine | undefined {
  const known = workbookExtension(ext);
  return known === undefined ? undefined : ENGINES[ENGINE_OF[known]];
}

export function engineNamed(name: EngineName): WorkbookEngine {
  return ENGINES[name];
}
