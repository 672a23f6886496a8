/**
 * The local workbook source: an .xlsx, .xlsm or .csv file on this machine exposed through the Source interface.
 * No account, no network; the product's embedded default.
 */
import path from 'node:path';
import { DEFAULT_FILE_LIMITS, type FileLimits, fileLimitsWith } from '../../config.ts';
import { AppError } from '../../errors.ts';
import { WORKBOOK_EXTENSIONS_TEXT } from '../../lib/workbook-file-types.ts';
import { assertStorable } from '../cell-rules.ts';
import type { SourceOptions } from '../kind.ts';
import type {
  Source,
  SourceCapabilities,
  SourceWrite,
  SpreadsheetSnapshot,
  Unwatch,
  WriteOptions,
  WriteResult,
} from '../source.ts';
import type { PreviousVersionKeeper } from './atomic-file.ts';
import { BackupKeeper } from './backups.ts';
import { engineForExtension, type WorkbookEngine } from './engines.ts';
import { watchFile } from './file-watch.ts';
import { LastReplaceUndo } from './undo-replace.ts';
import { WorkbookFile } from './workbook-file.ts';

class WorkbookSource implements Source {
  readonly kind = 'workbook';
  readonly capabilities: SourceCapabilities;
  #file: WorkbookFile | null;
  readonly #undo: LastReplaceUndo;
  readonly #options: SourceOptions;
  readonly #watches = new Set<Unwatch>();

  readonly #engine: WorkbookEngine;

  constructor(
    file: WorkbookFile,
    undo: LastReplaceUndo,
    engine: WorkbookEngine,
    capabilities: SourceCapabilities,
    options: SourceOptions,
  ) {
    this.#file = file;
    this.#undo = undo;
    this.#engine = engine;
    this.capabilities = capabilities;
    this.#options = options;
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

  /** A write that cannot be stored is refused alone; the others are saved together (workbook-file.ts). */
  async write(writes: readonly SourceWrite[]): Promise<PromiseSettledResult<WriteResult>[]> {
    const file = this.#open();
    const refused = writes.map((w) => this.#refusal(w));
    const saved = await file.write(writes.filter((_, i) => refused[i] === null));
    let next = 0;
    return writes.map((w, i): PromiseSettledResult<WriteResult> => {
      if (refused[i] !== null) return { status: 'rejected', reason: refused[i] };
      const outcome = saved[next++] as PromiseSettledResult<WriteResult>;
      if (outcome.status === 'rejected') return outcome;
      return { status: 'fulfilled', value: this.#withUndo(outcome.value, w.options) };
    });
  }

  /** A write this file cannot store is refused as `write` refuses it, first; then a full tab (workbook-file.ts). */
  async refusal(write: SourceWrite): Promise<AppError | null> {
    const unstorable = this.#refusal(write);
    if (unstorable !== null) return unstorable instanceof AppError ? unstorable : null;
    return this.#open().refusalOf(write);
  }

  /** Why `write` cannot be stored in this kind of file, or null. */
  #refusal({ mutations, options }: SourceWrite): unknown {
    try {
      assertStorable(mutations, this.capabilities.limits, options);
      this.#engine.assertStorable?.(mutations, options);
      return null;
    } catch (error) {
      return error;
    }
  }

  #withUndo(result: WriteResult, options: WriteOptions): WriteResult {
    const undo = this.#undo.undoFor(result.snapshot.version);
    if (!undo) return result;
    if (options.undoable) return { ...result, undo };
    undo.keep(); // nobody will ask: no link of the old version stays beside the file
    return result;
  }

  watch(onOutsideChange: () => void): Unwatch {
    const stop = watchFile(this.#open().path, onOutsideChange, this.#options);
    const unwatch = () => {
      stop();
      this.#watches.delete(unwatch);
    };
    this.#watches.add(unwatch);
    return unwatch;
  }

  async close(): Promise<void> {
    for (const unwatch of [...this.#watches]) unwatch();
    const file = this.#file;
    this.#file = null;
    await file?.close();
  }
}

/** The file limits a workbook source opened with `options` reads under (and its parse thread is started with). */
export function sourceFileLimits(options: SourceOptions): FileLimits {
  return fileLimitsWith(DEFAULT_FILE_LIMITS, options.fileLimits);
}

/**
 * A Source over a local workbook file (its engine chosen by extension, any case: lib/workbook-file-types.ts).
 */
export function createWorkbookSource(filePath: string, options: SourceOptions = {}): Source {
  const ext = path.extname(filePath).toLowerCase();
  const engine = engineForExtension(ext);
  if (!engine) {
    // The same answer as connecting such a file (kind.ts resolveLocation), which normally refuses it first.
    throw new AppError(
      'unsupported_media_type',
      `Unsupported file type '${ext || path.basename(filePath)}': expected ${WORKBOOK_EXTENSIONS_TEXT}.`,
      { parameter: 'location' },
    );
  }
  // A .csv file holds neither formulas (the guard stores them as text) nor formatting.
  const rich = engine.zipPackage;
  const capabilities = { formulas: rich, styles: rich, limits: engine.limits };
  // Each write keeps the version it replaces, unless backups are off (`keep: 0`) or not asked for.
  const keeper =
    options.backups && options.backups.keep > 0
      ? new BackupKeeper(options.backups, {
          ...(options.now ? { now: options.now } : {}),
          ...(options.log ? { log: options.log } : {}),
        })
      : null;
  // A write whose change cannot be recorded is taken back (undo-replace.ts); the backups keep their version first.
  const undo = new LastReplaceUndo(awaitingFirst(options.beforeFileReplace, keeper));
  // The Source's own: its limits and backups hold for its reads and writes alone.
  const file = new WorkbookFile(filePath, engine, sourceFileLimits(options), {
    keeper: undo,
    ...(options.onReadProgress ? { onReadProgress: options.onReadProgress } : {}),
    prepareAhead: options.prepareWritesAhead === true,
    ...(options.keptReads ? { keptReads: options.keptReads } : {}),
  });
  return new WorkbookSource(file, undo, engine, capabilities, options);
}

/** The keeper a write calls just before it replaces the file, after `hook` (SourceOptions.beforeFileReplace). */
function awaitingFirst(
  hook: SourceOptions['beforeFileReplace'],
  keeper: PreviousVersionKeeper | null,
): PreviousVersionKeeper | null {
  if (!hook) return keeper;
  return {
    async beforeReplace(filePath) {
      await hook(filePath);
      return keeper ? keeper.beforeReplace(filePath) : async () => {};
    },
    async beforeAppend(filePath, base) {
      await hook(filePath);
      return (await keeper?.beforeAppend?.(filePath, base)) ?? (async () => {});
    },
  };
}
