/**
 * The `workbook` kind: a local `.xlsx`, `.xlsm` or `.csv` file (the list is lib/workbook-file-types.ts),
 * named by its path.
 */
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../errors.ts';
import {
  refusedExtensionHint,
  WORKBOOK_EXTENSIONS_TEXT,
  workbookExtension,
} from '../../lib/workbook-file-types.ts';
import type { ResolvedLocation, SourceKind } from '../kind.ts';
import { workbookBackups } from './backup-restore.ts';
import { createDemoWorkbook } from './demo.ts';
import { engineForExtension } from './engines.ts';
import { keptReadFile } from './guard/kept-read.ts';
import { cancelAllParses, warmParseWorker } from './guard/parse-off-thread.ts';
import { createWorkbookSource, sourceFileLimits } from './index.ts';
import { isReadOnlyFile } from './read-only.ts';

async function resolveLocation(input: string): Promise<ResolvedLocation> {
  const resolved = path.resolve(input);
  let stat: Awaited<ReturnType<typeof fs.stat>>;
  try {
    stat = await fs.stat(resolved);
  } catch {
    throw new AppError('not_found', `File not found: ${resolved}`, { parameter: 'location' });
  }
  if (!stat.isFile())
    throw new AppError('invalid_parameter', `Not a file: ${resolved}`, { parameter: 'location' });
  // Canonical path (symlinks resolved) so the same file registered two ways is one connection, and so a link
  // is judged by the file it leads to: a link to a non-workbook gets the same answer as that file itself.
  const location = await fs.realpath(resolved);
  const ext = path.extname(location);
  if (!engineForExtension(ext)) {
    const hint = refusedExtensionHint(ext);
    const via = location === resolved ? '' : ` (${resolved} leads to ${location})`;
    throw new AppError(
      'unsupported_media_type',
      `Unsupported file type '${ext || path.basename(location)}'${hint ? ` (${hint})` : ''}${via}: expected ${WORKBOOK_EXTENSIONS_TEXT}.`,
      { parameter: 'location' },
    );
  }
  return { location, name: path.basename(location) };
}

export const workbookKind: SourceKind = {
  name: 'workbook',
  idPrefix: 'wb_',
  describe: `a local ${WORKBOOK_EXTENSIONS_TEXT} file (its path)`,
  label: `a local ${WORKBOOK_EXTENSIONS_TEXT} file`,
  // A workbook extension, or anything that names a path on this machine (so a wrong file type or a folder
  // gets a message about the file rather than "cannot tell what this is").
  claims: (input) =>
    workbookExtension(path.extname(input)) !== undefined || /[\\/]/.test(input) || existsSync(input),
  resolveLocation,
  open: (location, options) => createWorkbookSource(location, options),
  warmUp: (options) => warmParseWorker(sourceFileLimits(options)),
  stopWork: cancelAllParses,
  async forgetKept(location, options) {
    if (!options.keptReads) return;
    await fs.rm(keptReadFile(options.keptReads, location), { force: true });
    await fs.rm(keptReadFile(options.keptReads, location, 'prepared'), { force: true });
  },
  readOnly: isReadOnlyFile,
  backups: workbookBackups,
  async createDemo(dir) {
    const location = path.join(dir, 'demo.xlsx');
    try {
      await fs.access(location);
    } catch {
      await createDemoWorkbook(location);
    }
    return { location, name: 'demo.xlsx' };
  },
};
