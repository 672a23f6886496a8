/**
 * The one way a source says "this file cannot be read as a spreadsheet": 502 `upstream_error` with a `reason`
 * (docs/api.md, "Files SheetPort will not read"). Messages name the file by its base name only and never quote a
 * library.
 */
import path from 'node:path';
import { AppError } from '../../../errors.ts';
import { GridTooLarge } from '../../tab.ts';
import { PartTooLarge } from './zip-directory.ts';

export type UnreadableReason = 'not_a_file' | 'not_a_workbook' | 'encrypted' | 'corrupt' | 'too_large';

export function unreadable(reason: UnreadableReason, filePath: string, why: string): AppError {
  return new AppError('upstream_error', `"${path.basename(filePath)}" ${why}`, { reason });
}

/** The reason of an error made by `unreadable`, if it is one. Such errors depend on the file's content only. */
export function reasonOf(error: unknown): UnreadableReason | undefined {
  if (!(error instanceof AppError) || error.code !== 'upstream_error') return undefined;
  const reason = error.details.reason;
  return typeof reason === 'string' ? (reason as UnreadableReason) : undefined;
}

export function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return `${mb >= 10 ? Math.round(mb) : Math.round(mb * 10) / 10} MB`;
}

/**
 * A parser's failure as a client sees it. Our own AppErrors pass through; a bare `upstream_error` (which may
 * quote a zip or XML library, URLs included) and anything else a parser throws become `corrupt`.
 */
export function parserFailure(error: unknown, filePath: string): AppError {
  if (error instanceof AppError && (error.code !== 'upstream_error' || reasonOf(error))) return error;
  if (error instanceof GridTooLarge) return unreadable('too_large', filePath, error.message);
  if (error instanceof PartTooLarge) {
    return unreadable(
      'too_large',
      filePath,
      'holds a part that unpacks to more than its declared size (a zip bomb); it is not read.',
    );
  }
  return unreadable(
    'corrupt',
    filePath,
    'could not be read: it is damaged, or not in a format SheetPort reads; save it again from your spreadsheet program.',
  );
}
