/**
 * A read a source refused because the spreadsheet is most likely in the middle of another program's save: a
 * workbook saved in place (emptied, then written), read half written. Until `untilMs`, a Spreadsheet answers
 * its reads from the last version it read whole (spreadsheets/current-copy.ts), as a database answers from the
 * last committed state while a transaction is under way. A request no such version can answer (a write, a .csv's
 * first read) is told 503 with `Retry-After`: the state passes in a moment, unlike a damaged file's 502.
 */
import path from 'node:path';
import { AppError } from '../errors.ts';

const underWay = new WeakMap<object, number>();

function markSaveUnderWay(error: unknown, untilMs: number): void {
  if (typeof error === 'object' && error !== null) underWay.set(error, untilMs);
}

export function saveMayBeUnderWay(error: unknown, nowMs = Date.now()): boolean {
  const until = typeof error === 'object' && error !== null ? underWay.get(error) : undefined;
  return until !== undefined && nowMs < until;
}

/** The refusal of `filePath` read half written by a save that may still be under way until `untilMs`. */
export function saveUnderWay(filePath: string, untilMs: number, nowMs = Date.now()): AppError {
  const error = new AppError(
    'upstream_unavailable',
    `"${path.basename(filePath)}" is being written: another program is most likely still saving it. Try again in a moment.`,
    { reason: 'save_under_way', retry_after: Math.max(1, Math.ceil((untilMs - nowMs) / 1000)) },
  );
  markSaveUnderWay(error, untilMs);
  return error;
}
