/**
 * The file kinds a workbook source reads, by extension, and the engine that parses each. The parse worker
 * looks a format up by name here, so the engine can change without touching the guards around it.
 */
import type { Mutation, WriteOptions } from '../source.ts';
import { assertCsvKeepsText, CsvDocument } from './csv.ts';
import type { DocumentParser } from './document.ts';
import { OoxmlDocument } from './ooxml/ooxml-document.ts';

export type FormatName = 'xlsx' | 'csv';

export interface WorkbookFormat {
  name: FormatName;
  /** A zip package (OOXML): its central directory and inflated sizes are checked before parsing. */
  zipPackage: boolean;
  parse: DocumentParser;
  /** What this kind of file cannot store beyond the cell limits, refused (400) before anything is written. */
  assertStorable?(mutations: readonly Mutation[], options: WriteOptions): void;
}

const FORMATS: Record<FormatName, WorkbookFormat> = {
  xlsx: {
    name: 'xlsx',
    zipPackage: true,
    parse: (bytes, _fileName, limits) => OoxmlDocument.parse(bytes, limits),
  },
  csv: {
    name: 'csv',
    zipPackage: false,
    parse: async (bytes, fileName, limits) => CsvDocument.parse(bytes, fileName, limits),
    assertStorable: assertCsvKeepsText,
  },
};

/** `.xlsx` / `.csv` in any case; undefined for any other extension. */
export function formatForExtension(ext: string): WorkbookFormat | undefined {
  const name = ext.toLowerCase().replace(/^\./, '');
  return name === 'xlsx' || name === 'csv' ? FORMATS[name] : undefined;
}

export function formatNamed(name: FormatName): WorkbookFormat {
  return FORMATS[name];
}
