/**
 * A read a source refused because the spreadsheet is most likely in the middle of another program's save: a
 * workbook saved in place (emptied, then written), read half written. Until `untilMs`, a Spreadsheet answers
 * its reads from the last version it read whole (spreadsheets/current-copy.ts), as a database answers from the
 * last committed state while a transaction is under way; past it, the refusal is the answer.
 */
const underWay = new WeakMap<object, number>();

export function markSaveUnderWay(error: unknown, untilMs: number): void {
  if (typeof error === 'object' && error !== null) underWay.set(error, untilMs);
}

export function saveMayBeUnderWay(error: unknown, nowMs = Date.now()): boolean {
  const until = typeof error === 'object' && error !== null ? underWay.get(error) : undefined;
  return until !== undefined && nowMs < until;
}
