import type { AppError } from '../errors.ts';
import type { SourceWrite, WriteResult } from '../sources/source.ts';
import type { CurrentCopy } from './current-copy.ts';
import type { LastRecorded } from './last-recorded.ts';
import { answerFor, undoUnrecorded } from './undo-answer.ts';

/** One write waiting for its turn, with the way to answer its caller. */
export interface PendingWrite extends SourceWrite {
  resolve: (result: WriteResult) => void;
  reject: (error: unknown) => void;
}

/** What a write turn works with: the spreadsheet's parts, lent by its `Spreadsheet`. */
export interface WriteParts {
  copy: CurrentCopy;
  recorded: LastRecorded;
  /** Throws (the lease's reason) unless this process may write the spreadsheet. */
  confirmOwner: () => Promise<void>;
  /**
   * Team mode: another instance may have written since the copy was read, so it is brought current (the
   * source's version checked, as a read does) before this turn writes. Absent in one process: its turns see
   * every write.
   */
  catchUp?: () => Promise<unknown>;
  /** Throws (507) when a change could not be recorded now. */
  assertCanRecord: () => void;
  log: (message: string, err?: unknown) => void;
}

/**
 * One turn of writes to a spreadsheet, in this order: the owner is confirmed; a change that could not be
 * recorded is refused before the source takes it; in team mode the copy is brought current (the turn runs under
 * the spreadsheet's lock across instances, spreadsheet.ts); an outside change a read has loaded but nobody recorded is
 * recorded on its own (not merged into these writes' changes); the source takes the writes; each change is
 * recorded (its webhooks queued) in arrival order; only then is each write answered, and only then do reads see
 * it: while the source has the writes, reads are answered from the copy before them (current-copy.ts). A write
 * whose change cannot be recorded is undone where the source can.
 */
export async function writeTurn(parts: WriteParts, writes: PendingWrite[]): Promise<void> {
  const refuse = (error: unknown) => {
    for (const write of writes) write.reject(error);
  };
  try {
    await parts.confirmOwner();
    parts.assertCanRecord();
    await parts.catchUp?.();
  } catch (err) {
    return refuse(err);
  }
  if (parts.copy.snapshot) {
    try {
      await parts.recorded.record(parts.copy.snapshot);
    } catch (err) {
      return refuse(answerFor(err, false));
    }
  }
  await parts.copy.whileWriting(async () => {
    // The turn's writes together, so a source that can save them in one replace (group commit) does so.
    const taken = await parts.copy.source.write(
      writes.map((w) => ({
        sourceSheetId: w.sourceSheetId,
        mutations: w.mutations,
        options: { ...w.options, undoable: true },
      })),
    );
    await answerEach(parts, writes, taken);
  });
}

/** Record each write the source took, then show it to reads and answer it; undo one that cannot be recorded. */
async function answerEach(
  parts: WriteParts,
  writes: PendingWrite[],
  taken: PromiseSettledResult<WriteResult>[],
): Promise<void> {
  let undone = null as { version: string; error: AppError } | null;
  for (const [i, outcome] of taken.entries()) {
    const write = writes[i] as PendingWrite;
    if (outcome.status === 'rejected') {
      write.reject(outcome.reason);
      continue;
    }
    const { undo, ...result } = outcome.value;
    // Writes committed together share a version: when one of them had to undo it, the others are answered alike.
    if (undone?.version === result.snapshot.version) {
      write.reject(undone.error);
      continue;
    }
    try {
      // The write was redone on a save made meanwhile by another program: that save is an outside change.
      if (result.before) await parts.recorded.record(result.before);
      await parts.recorded.record(result.snapshot);
    } catch (err) {
      const { error, reverted } = await undoUnrecorded(undo, err, parts.log);
      if (reverted) {
        parts.copy.replace(null); // read again: the source holds the version before the write
        undone = { version: result.snapshot.version, error };
      }
      write.reject(error);
      continue;
    }
    parts.copy.replace(result.snapshot);
    undo?.keep();
    write.resolve(result);
  }
}
