/**
 * The local workbook source: an .xlsx or .csv file on this machine exposed through the Source interface.
 * No account, no network; the product's embedded default.
 */
import path from 'node:path';
import { type FileLimits, resolveFileLimits } from '../../config.ts';
import { AppError } from '../../errors.ts';
import { assertStorable, EXCEL_LIMITS } from '../cell-rules.ts';
import type { Mutation, Source, SpreadsheetSnapshot, WriteOptions, WriteResult } from '../source.ts';
import { formatForExtension } from './formats.ts';
import { fileFor, releaseFile, type WorkbookFile } from './workbook-file.ts';

export { createDemoWorkbook } from './demo.ts';

class WorkbookSource implements Source {
  readonly kind = 'workbook' as const;
  readonly limits = EXCEL_LIMITS;
  #file: WorkbookFile | null;

  constructor(file: WorkbookFile) {
    this.#file = file;
  }

  #open(): WorkbookFile {
    if (!this.#file) throw new AppError('internal_error', 'Workbook source is closed');
    return this.#file;
  }

  version(): Promise<string> {
    return this.#open().version();
  }

  read(): Promise<SpreadsheetSnapshot> {
    return this.#open().read();
  }

  async write(sourceSheetId: string, mutations: Mutation[], options: WriteOptions): Promise<WriteResult> {
    assertStorable(mutations, this.limits);
    return this.#open().write(sourceSheetId, mutations, options);
  }

  async close(): Promise<void> {
    const file = this.#file;
    this.#file = null;
    if (file) await releaseFile(file);
  }
}

/** A Source over a local `.xlsx` or `.csv` file (chosen by extension, any case). */
export function createWorkbookSource(filePath: string, limits: FileLimits = resolveFileLimits()): Source {
  const ext = path.extname(filePath).toLowerCase();
  const format = formatForExtension(ext);
  if (!format) {
    throw new AppError(
      'invalid_parameter',
      `Unsupported workbook file type "${ext || path.basename(filePath)}"; use .xlsx or .csv`,
      {
        parameter: 'path',
      },
    );
  }
  return new WorkbookSource(fileFor(filePath, format, limits));
}
