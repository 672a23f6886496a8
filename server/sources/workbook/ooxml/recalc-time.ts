/**
 * How long a write may spend computing again the formulas it reaches. It is done a formula at a time with reads
 * answered between, so it holds no read up; but it holds every later write to the file, and what the formulas
 * read is the file's to say. Past the file's parse limit (SHEETPORT_PARSE_TIMEOUT_MS, 60 s by default: the time
 * the service gives a file's content) the write is refused and nothing of it is saved.
 */
import { DEFAULT_FILE_LIMITS } from '../../../config.ts';
import { AppError } from '../../../errors.ts';
import type { GridLimits } from '../../tab.ts';

/** The performance.now() past which (without a limit given, as a document made in a test: the default) a recalculation starting now is given up. */
export function recalcStopAt(limits: GridLimits | undefined): number {
  return performance.now() + (limits?.computeTimeoutMs ?? DEFAULT_FILE_LIMITS.parseTimeoutMs);
}

export function recalcTimeUp(): AppError {
  return new AppError(
    'upstream_error',
    "Computing the workbook's formulas again after this write took longer than the file's time limit, so the " +
      'write was stopped and nothing was saved (SHEETPORT_PARSE_TIMEOUT_MS).',
    { reason: 'too_large' },
  );
}
