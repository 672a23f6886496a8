/**
 * Reading a .csv file in the parse thread: its layout, where each record lies in the bytes, and its tab, typed
 * into flat arrays (csv-tab.ts). What it sends to the service moves without a copy but for the distinct texts.
 */
import path from 'node:path';
import type { GridLimits } from '../tab.ts';
import { refuseOversizedCsv } from './csv-grid-bound.ts';
import { type CsvLayout, layoutOf } from './csv-layout.ts';
import { scanRecords } from './csv-scan.ts';
import { CsvTabBuilder, type EncodedCsvTab, transferablesOfCsvTab } from './csv-tab.ts';

/** A read file: record i's text is `bytes[starts[i], ends[i])` (line ending excluded). */
export interface CsvRead {
  layout: CsvLayout;
  starts: Float64Array;
  ends: Float64Array;
  tab: EncodedCsvTab;
}

export function csvNameOf(fileName: string): string {
  return path.basename(fileName, path.extname(fileName));
}

export function readCsv(bytes: Uint8Array, fileName: string, limits?: GridLimits): CsvRead {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const layout = layoutOf(buf);
  const from = layout.bom ? 3 : 0;
  const name = csvNameOf(fileName);
  let builder = new CsvTabBuilder(name, limits);
  let starts: number[] = [];
  let ends: number[] = [];
  scanRecords(
    buf,
    from,
    buf.length,
    layout.delimiter,
    (fields, start, end) => {
      builder.add(fields);
      starts.push(start);
      ends.push(end);
    },
    () => {
      // csv-parse reads it: a small file describing a huge grid is refused before it costs csv-parse seconds.
      refuseOversizedCsv(buf.toString('utf8', from), layout.delimiter, name, limits);
      builder = new CsvTabBuilder(name, limits);
      starts = [];
      ends = [];
    },
  );
  return {
    layout,
    starts: Float64Array.from(starts),
    ends: Float64Array.from(ends),
    tab: builder.finish(),
  };
}

export function transferablesOfCsvRead(read: CsvRead): ArrayBuffer[] {
  return [read.starts.buffer, read.ends.buffer, ...transferablesOfCsvTab(read.tab)] as ArrayBuffer[];
}
