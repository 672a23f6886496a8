/**
 * A large .csv file read by two threads: the parse thread reads up to the first line break past about the middle while
 * a helper thread (csv-part-thread.ts) reads the rest, each typing its fields into its own arrays; the second
 * half's are then appended to the first's. A million rows: about 1.2 s of one thread becomes about 0.7.
 *
 * Where the second half starts is a guess: the line break may lie inside a field in quotes. The scanner keeps no
 * state between records, so the guess is right exactly when the first half, read on its own, ends there with a
 * whole record; if it does not, or the second half needs csv-parse, or it typed a column's booleans the other
 * way round from the first (`CsvTabBuilder.append`), the first thread reads on alone: the outcome is always the
 * one `readCsv` gives.
 */
import { resourceLimits, Worker } from 'node:worker_threads';
import { workerScriptUrl } from '../../lib/archive-path.ts';
import { ByteProgress, type ProgressReport } from '../../lib/byte-progress.ts';
import type { GridLimits } from '../tab.ts';
import { layoutOf } from './csv-layout.ts';
import type { PartJob, PartRead, PartReply } from './csv-part-thread.ts';
import { type CsvRead, csvNameOf, ReadSink, readCsv } from './csv-read.ts';
import { scanCommon } from './csv-scan.ts';
import { CsvTabBuilder } from './csv-tab-builder.ts';

const HELPER_URL = workerScriptUrl('csv-part-thread', import.meta.url);
/** Below this a second thread costs more to start (tens of milliseconds) than it saves. */
export const SPLIT_FROM_BYTES = 16 * 1024 * 1024;
const LF = 0x0a;
/** The first thread's share: a little more than half, as the helper first loads its modules (about 0.1 s). */
const FIRST_SHARE = 0.53;

/** The second half's read under way, and the way to stop it. */
export interface PartReading {
  read: Promise<PartRead | null>;
  cancel(): void;
}

/** How a split read is made: from what size, and who reads the second half (a helper thread; tests: their own). */
export interface SplitOptions {
  splitFrom: number;
  readPart: (job: PartJob) => PartReading;
}

export async function readCsvSplit(
  bytes: Uint8Array,
  fileName: string,
  limits?: GridLimits,
  onProgress?: ProgressReport,
  { splitFrom, readPart }: SplitOptions = { splitFrom: SPLIT_FROM_BYTES, readPart: readOnHelperThread },
): Promise<CsvRead> {
  const alone = () => readCsv(bytes, fileName, limits, onProgress);
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const layout = layoutOf(buf);
  const from = layout.bom ? 3 : 0;
  const split =
    buf.length >= splitFrom ? buf.indexOf(LF, from + Math.floor((buf.length - from) * FIRST_SHARE)) + 1 : 0;
  if (split <= from || split >= buf.length) return alone();

  const counted = new Int32Array(new SharedArrayBuffer(4));
  const helper = readPart({
    bytes: new Uint8Array(buf.subarray(split)), // a copy: this thread keeps reading its own
    delimiter: layout.delimiter,
    limits,
    counted,
  });
  const progress = onProgress ? new ByteProgress(buf.length, onProgress) : undefined;
  // The helper's bytes are counted with this thread's, whenever this one says how far it is.
  const both = progress && { add: (n: number) => progress.add(n + Atomics.exchange(counted, 0, 0)) };
  const sink = new ReadSink(new CsvTabBuilder(buf, csvNameOf(fileName), limits), both);
  const delimiter = layout.delimiter.charCodeAt(0);
  if (!scanCommon(buf, from, split, delimiter, sink) || !sink.builder.hasHeader) {
    helper.cancel();
    return alone();
  }
  // While the helper finishes, what it reads still moves the progress on.
  const ticking = both && setInterval(() => both.add(0), 100);
  const part = await helper.read;
  clearInterval(ticking);
  if (part && sink.builder.append(part.tab)) sink.appendRecords(part.starts, part.ends, split);
  else if (!scanCommon(buf, split, buf.length, delimiter, sink)) return alone();
  progress?.finish();
  return sink.read(layout);
}

/** The second half read on a helper thread; null if it needs csv-parse or the thread failed. */
export function readOnHelperThread(job: PartJob): PartReading {
  const cap = resourceLimits.maxOldGenerationSizeMb;
  const worker = new Worker(HELPER_URL, {
    ...(cap ? { resourceLimits: { maxOldGenerationSizeMb: cap } } : {}),
    stdout: false,
    stderr: false,
  });
  const read = new Promise<PartRead | null>((resolve) => {
    worker.once('message', (reply: PartReply) => resolve(reply.read));
    worker.once('error', () => resolve(null));
    worker.once('exit', () => resolve(null));
  }).finally(() => void worker.terminate().catch(() => {}));
  worker.postMessage(job, [job.bytes.buffer as ArrayBuffer]);
  return { read, cancel: () => void worker.terminate().catch(() => {}) };
}
