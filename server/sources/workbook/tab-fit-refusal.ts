/**
 * A write that would take its tab past its last row or column, refused before the document is parsed (on a full
 * million-row sheet that parse takes seconds): planned against the tab as the last read gave it. Only that
 * refusal is decided here, and only for a write no other waits before (Source.refusal); anything else goes on to
 * the document as ever.
 */
import { AppError } from '../../errors.ts';
import { planWrite } from '../plan.ts';
import { assertTabFits } from '../sheet-limits.ts';
import type { CellLimits, SourceWrite, TabSnapshot } from '../source.ts';

/** The 409 a write to `tabs` (the file as it is now) would get for going past the tab's edge; null for any other. */
export function tabFitRefusal(
  tabs: readonly TabSnapshot[],
  job: SourceWrite,
  limits: CellLimits,
): AppError | null {
  try {
    const tab = tabs.find((t) => t.sourceSheetId === job.sourceSheetId);
    if (!tab) return null;
    job.options.precondition?.(tab); // its refusal comes first, as in the write itself
    const plan = planWrite(tab, job.options.mutationsFor?.(tab) ?? job.mutations, { options: job.options });
    assertTabFits(tab, plan, limits);
    return null;
  } catch (error) {
    return error instanceof AppError && error.code === 'conflict' && error.details.limit_of !== undefined
      ? error
      : null;
  }
}
