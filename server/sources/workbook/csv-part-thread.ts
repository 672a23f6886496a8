/**
 * The helper thread of a split .csv read (csv-read-split.ts): reads the records of the bytes it is sent as the
 * continuation of a tab whose header is read elsewhere, and sends its arrays back, moved, not copied.
 */
import { parentPort } from 'node:worker_threads';
import type { GridLimits } from '../tab.ts';
import { ReadSink } from './csv-read.ts';
import { scanCommon } from './csv-scan.ts';
import { CsvTabBuilder, type CsvTabPart } from './csv-tab-builder.ts';

export interface PartJob {
  bytes: Uint8Array;
  delimiter: string;
  limits: GridLimits | undefined;
  /** Bytes read so far, added to as the read goes on (the parse thread says how far both are). */
  counted: Int32Array;
}

export interface PartRead {
  tab: CsvTabPart;
  /** Where each record is in the bytes sent. */
  starts: Float64Array;
  ends: Float64Array;
}

/** Null: the bytes need csv-parse (the parse thread reads them itself). */
export interface PartReply {
  read: PartRead | null;
}

/** The records of `job.bytes` as the continuation of a tab; exported for tests, which read it in their own thread. */
export function readCsvPart(job: PartJob): { reply: PartReply; transfer: ArrayBuffer[] } {
  const buf = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  const progress = { add: (n: number) => void Atomics.add(job.counted, 0, n) };
  const sink = new ReadSink(new CsvTabBuilder(buf, '', job.limits, true), progress);
  // Past the lines a tab may hold, the reading thread reads this half too, and refuses the file as one thread would.
  if (!scanCommon(buf, 0, buf.length, job.delimiter.charCodeAt(0), sink) || sink.linesOver)
    return { reply: { read: null }, transfer: [] };
  const tab = sink.builder.part();
  const starts = sink.starts.done();
  const ends = sink.ends.done();
  const transfer = [tab.cellStart, tab.kinds, tab.values, tab.shownAt, starts, ends].map(
    (a) => a.buffer as ArrayBuffer,
  );
  return { reply: { read: { tab, starts, ends } }, transfer };
}

parentPort?.once('message', (job: PartJob) => {
  const { reply, transfer } = readCsvPart(job);
  parentPort?.postMessage(reply, transfer);
});
