import { AppError } from '../errors.ts';
import { insufficientStorage, isStorageFailure } from '../lib/storage-failure.ts';
import type { WriteUndo } from '../sources/source.ts';

/**
 * The source took a write whose change could not be recorded: put back what it replaced, so nothing unrecorded
 * stays, and say what happened. A source that cannot undo (or a file saved again meanwhile) keeps the write; it is
 * recorded once there is room (the follower looks again), and the answer says so.
 */
export async function undoUnrecorded(
  undo: WriteUndo | undefined,
  cause: unknown,
  log: (message: string, err?: unknown) => void,
): Promise<{ error: AppError; reverted: boolean }> {
  let reverted = false;
  try {
    reverted = (await undo?.revert()) ?? false;
  } catch (err) {
    log('Undoing a write that could not be recorded failed', err);
  }
  return { error: answerFor(cause, !reverted), reverted };
}

/** What a write whose change could not be recorded answers: 507 for a full data dir, else 500. */
export function answerFor(cause: unknown, sourceKeptIt: boolean): AppError {
  if (cause instanceof AppError) return cause;
  if (isStorageFailure(cause)) {
    if (!sourceKeptIt) return insufficientStorage();
    return new AppError(
      'insufficient_storage',
      "SheetPort's data folder has no room to record this write, and the spreadsheet took it already; it is " +
        'recorded once there is room. Check the rows before retrying.',
    );
  }
  return new AppError(
    'internal_error',
    sourceKeptIt
      ? 'The write reached the spreadsheet but could not be recorded; it is recorded on a later look.'
      : 'The write could not be recorded, so it was not made.',
  );
}
