/**
 * Reading a .csv file in the parse thread: its layout, where each record lies in the bytes, and its tab, typed
 * into flat arrays (csv-tab.ts). What it sends to the service moves without a copy but for the distinct texts.
 */

import path from 'node:path';
import { ByteProgress, type ProgressReport } from '../../lib/byte-progress.ts';
import type { GridLimits } from '../tab.ts';
import { refuseOversizedCsv } from './csv-grid-bound.ts';
import { type CsvLayout, layoutOf } from './csv-layout.ts';
import { type FieldSink, scanRecords } from './csv-scan.ts';
import { type EncodedCsvTab, transferablesOfCsvTab } from './csv-tab.ts';
import { CsvTabBuilder } from './csv-tab-builder.ts';
import { Growing } from './growing-array.ts';

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

export function readCsv(
  bytes: Uint8Array,
  fileName: string,
  limits?: GridLimits,
  onProgress?: ProgressReport,
): CsvRead {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const layout = layoutOf(buf);
  const from = layout.bom ? 3 : 0;
  const name = csvNameOf(fileName);
  const progress = onProgress ? new ByteProgress(buf.length, onProgress) : undefined;
  let sink = new ReadSink(new CsvTabBuilder(buf, name, limits), progress);
  scanRecords(buf, from, buf.length, layout.delimiter, sink, () => {
    // csv-parse reads it: a small file describing a huge grid is refused before it costs csv-parse seconds.
    refuseOversizedCsv(buf.toString('utf8', from), layout.delimiter, name, limits);
    sink = new ReadSink(new CsvTabBuilder(buf, name, limits));
    return sink;
  });
  progress?.finish();
  return sink.read(layout);
}

/**
 * The tab builder, and where each record is. Typed arrays grown by doubling: arrays of numbers pushed a record at a
 * time were copied as they grew, collected, and copied once more at the end (a file of a million blank lines cost
 * about 0.9 s and 220 MB; fifty million, 18 s and 3.3 GB).
 */
export class ReadSink implements FieldSink {
  readonly builder: CsvTabBuilder;
  readonly starts = new Growing((n) => new Float64Array(n));
  readonly ends = new Growing((n) => new Float64Array(n));
  readonly #progress: Pick<ByteProgress, 'add'> | undefined;
  /** The record positions are sized for the whole file (as soon as the builder expects its size). */
  #sized = false;
  readonly #maxLines: number;
  /** Lines (records) read, kept or not: past `#maxLines` they are only counted, and the read is refused at its
   * end (`read`), so a file that also cannot be read says that first, as csv-parse would. */
  #lines = 0;
  /** Where the bytes counted on `#progress` end. */
  #counted = 0;
  constructor(builder: CsvTabBuilder, progress?: Pick<ByteProgress, 'add'>) {
    this.builder = builder;
    this.#progress = progress;
    this.#maxLines = builder.maxLines;
  }

  /** Records another sink found, `offset` bytes further on in the file (csv-read-split.ts). */
  appendRecords(starts: Float64Array, ends: Float64Array, offset: number): void {
    this.#lines += ends.length;
    if (this.linesOver) {
      this.builder.stopKeepingCells();
      return;
    }
    for (const [mine, theirs] of [
      [this.starts, starts],
      [this.ends, ends],
    ] as const) {
      const from = mine.length;
      mine.append(theirs);
      const array = mine.array;
      for (let i = from; i < mine.length; i++) array[i]! += offset;
    }
  }

  /** More lines than a tab may hold rows (csv-read-bounds.ts `maxLinesOf`): the read is refused. */
  get linesOver(): boolean {
    return this.#lines > this.#maxLines;
  }

  read(layout: CsvLayout): CsvRead {
    if (this.linesOver) throw this.builder.tooManyLines();
    return {
      layout,
      starts: this.starts.done(),
      ends: this.ends.done(),
      tab: this.builder.finish(),
    };
  }
  text(field: string): void {
    this.builder.text(field);
  }
  bytes(buf: Buffer, start: number, end: number): void {
    this.builder.bytes(buf, start, end);
  }
  endRecord(start: number, end: number): void {
    this.builder.endRecord(start, end);
    if (++this.#lines <= this.#maxLines) {
      this.starts.push(start);
      this.ends.push(end);
      if (!this.#sized) this.#sizeForTheRest();
    } else if (this.#lines === this.#maxLines + 1) this.builder.stopKeepingCells();
    // Counted every few thousand records: a million-row file says how far it is without a call per row.
    if (this.#progress && (this.#lines & 4095) === 0) {
      this.#progress.add(end - this.#counted);
      this.#counted = end;
    }
  }

  #sizeForTheRest(): void {
    const expected = this.builder.recordsExpected(this.ends.length);
    if (expected === 0) return;
    this.starts.expect(expected);
    this.ends.expect(expected);
    this.#sized = true;
  }
}

export function transferablesOfCsvRead(read: CsvRead): ArrayBuffer[] {
  return [read.starts.buffer, read.ends.buffer, ...transferablesOfCsvTab(read.tab)] as ArrayBuffer[];
}
