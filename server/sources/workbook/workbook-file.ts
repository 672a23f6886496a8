/**
 * Everything that happens to one workbook file on disk for the Source that opened it: reading, the
 * parsed-document cache, group-committed writes, outside-change detection, lock refusal and the atomic replace.
 *
 * One instance per Source, with that Source's limits and backups: nothing is shared between Sources or services
 * but the file itself. Writes come from the Source's owner one turn at a time (the Spreadsheet's turns, the one
 * queue of its writes, lib/turns.ts), and the writes of one turn are saved in one replace; this file keeps no
 * queue, only the rule that its document in memory is changed by one write at a time (a read, or a batch handed
 * over while one is under way, waits for it). Two writers of one file (two services, two processes) never
 * replace each other's save: each replace is conditional on the version it was based on (atomic-file.ts), and a
 * write based on an older one starts over from the file, as after any outside save.
 *
 * Reads never parse on the event loop: the bytes come through the file guard (regular file, size limit),
 * zip packages through the package check, and the parse runs in a worker with a heap cap and a deadline
 * (`workbook/guard/`). A write needs the document itself in this thread, so it parses here, but only a file
 * whose exact version the worker has parsed already, so its size and parse time are known to be bounded.
 * A file that cannot be read is remembered as such until its signature changes (guard/checked-bytes.ts).
 */

import path from 'node:path';
import type { FileLimits } from '../../config.ts';
import { AppError } from '../../errors.ts';
import type { ProgressReport } from '../../lib/byte-progress.ts';
import { freeBytes } from '../../lib/free-buffer.ts';
import type { KeptReadsPolicy } from '../kept-reads.ts';
import type { SourceOptions } from '../kind.ts';
import { planWrite, type WritePlan } from '../plan.ts';
import { markReadTabs } from '../read-identity.ts';
import { assertTabFits } from '../sheet-limits.ts';
import type { SourceWrite, SpreadsheetSnapshot, TabSnapshot, WriteResult } from '../source.ts';
import { rowsComplete } from '../tab-rows.ts';
import { ChangedMeanwhile, type PreviousVersionKeeper, replaceFileAtomically } from './atomic-file.ts';
import { appendInPlace } from './csv-append.ts';
import { documentLimits, type WorkbookDocument } from './document.ts';
import { DocumentAhead, preparedKeep, prepareEveryTab } from './document-ahead.ts';
import type { ReceivedRead, WorkbookEngine } from './engines.ts';
import { statSignature } from './file-signature.ts';
import { CheckedBytes } from './guard/checked-bytes.ts';
import { warmParseWorker } from './guard/parse-off-thread.ts';
import { FileReads } from './guard/parse-or-kept.ts';
import type { FileBytes } from './guard/read-regular-file.ts';
import { parserFailure } from './guard/unreadable.ts';
import { removeLeftovers } from './leftovers.ts';
import { assertNotLocked, fileError } from './lock.ts';
import { assertNotReadOnly, isReadOnlyFile } from './read-only.ts';
import { tabFitRefusal } from './tab-fit-refusal.ts';

interface WriteJob extends SourceWrite {
  resolve(result: WriteResult): void;
  reject(error: unknown): void;
}

/** What a WorkbookFile may be given beyond its path, engine and limits (SourceOptions has each one's why). */
export interface WorkbookFileOptions {
  /** Keeps the version each write replaces (backups.ts). */
  keeper?: PreviousVersionKeeper | null;
  onReadProgress?: SourceOptions['onReadProgress'];
  prepareAhead?: boolean;
  keptReads?: KeptReadsPolicy;
}

type Outcome = { ok: true; counts: WritePlan['counts'] } | { ok: false; error: unknown };

/**
 * The file's content at one version (the stat signature of the file it was read from, or last written as):
 * the parse worker's read of it (its tabs, and how a write gets its document, engines.ts), until a write
 * needs the document itself, parsed in this thread.
 */
type Loaded =
  | { signature: string; read: ReceivedRead; doc: null }
  | { signature: string; read: null; doc: WorkbookDocument };

/** A write's view of the file: the document in this thread and the signature it matches. */
interface LoadedDocument {
  signature: string;
  doc: WorkbookDocument;
  /** The file as read anew for this document (null: the document a previous write left): what the write is
   * applied on, which may hold another program's save nobody has recorded yet. */
  read: SpreadsheetSnapshot | null;
}

const tabsOf = (loaded: Loaded): TabSnapshot[] => (loaded.doc ? loaded.doc.tabs() : loaded.read.tabs);

/** How often a write re-reads and re-applies when another program keeps saving the file under us. */
const MAX_ATTEMPTS = 5;
/** Thrown inside a flush to start it over from the file (the document in memory is not trustworthy). */
const RESTART = Symbol('restart');

export class WorkbookFile {
  readonly path: string;
  readonly title: string;
  readonly #engine: WorkbookEngine;
  readonly #limits: FileLimits;
  /** Keeps the version each write replaces (backups.ts); null when backups are off. */
  readonly #keeper: PreviousVersionKeeper | null;
  /** Hears how far a large read has come (SourceOptions.onReadProgress). */
  readonly #onReadProgress: ProgressReport | undefined;
  /** Its parses, and the reads they keep for the next start (guard/parse-or-kept.ts). */
  readonly #reads: FileReads;
  /** Parsed content plus the signature of the file it matches; dropped whenever it may be wrong. */
  #cache: Loaded | null = null;
  /** Its bytes, checked, and the refusal of its current version if it has one (guard/checked-bytes.ts). */
  readonly #bytes: CheckedBytes;
  /** The write under way: reads, and a batch handed over meanwhile, wait for it. */
  #writing: Promise<void> | null = null;
  /** The load under way, which every read arriving meanwhile shares. */
  #loading: Promise<Loaded> | null = null;
  /** The document the next write will edit, prepared behind a read of a large file. */
  readonly #ahead: DocumentAhead;

  constructor(filePath: string, engine: WorkbookEngine, limits: FileLimits, more: WorkbookFileOptions = {}) {
    const { onReadProgress } = more;
    this.path = path.resolve(filePath);
    this.title = path.basename(filePath);
    this.#engine = engine;
    this.#limits = limits;
    this.#keeper = more.keeper ?? null;
    this.#reads = new FileReads(more.keptReads);
    this.#bytes = new CheckedBytes(this.path, engine.zipPackage, limits);
    this.#onReadProgress = onReadProgress && ((fraction) => onReadProgress(fraction, this.path));
    this.#ahead = new DocumentAhead(more.prepareAhead === true && engine.prepareAhead);
    // Before anything reads or writes it here: what an interrupted write of an earlier process left beside it.
    removeLeftovers(this.path);
    warmParseWorker(limits);
  }

  /** Checked before every read: a synchronous stat (microseconds; an async one's round trip dominated small reads). */
  version(): Promise<string> {
    return statSignature(this.path);
  }

  async read(): Promise<SpreadsheetSnapshot> {
    for (;;) {
      // The cached document is being changed by a write under way: its answer comes first.
      while (this.#writing) await this.#writing;
      const loaded = await this.#load();
      // Taken at once, while no write has the document (one may have begun while the file was looked at).
      if (!this.#writing) return { title: this.title, version: loaded.signature, tabs: tabsOf(loaded) };
    }
  }

  /** The writes of one turn, saved together in one replace (group commit), each settled in order. */
  async write(writes: readonly SourceWrite[]): Promise<PromiseSettledResult<WriteResult>[]> {
    while (this.#writing) await this.#writing;
    const jobs: WriteJob[] = [];
    const answers = writes.map(
      (write) =>
        new Promise<WriteResult>((resolve, reject) => {
          jobs.push({ ...write, resolve, reject });
        }),
    );
    const writing = this.#flush(jobs).finally(() => {
      if (this.#writing === writing) this.#writing = null;
    });
    this.#writing = writing;
    return Promise.allSettled(answers);
  }

  /** Its Source is done with it: a write under way ends first, then a keep of its read (nothing after). */
  async close(): Promise<void> {
    while (this.#writing) await this.#writing;
    await this.#reads.close();
  }

  /** The file's tabs: the cached ones while the file is unchanged, else a guarded parse in a worker. */
  #load(): Promise<Loaded> {
    this.#loading ??= this.#loadNow().finally(() => {
      this.#loading = null;
    });
    return this.#loading;
  }

  async #loadNow(): Promise<Loaded> {
    for (let attempt = 1; ; attempt++) {
      const current = await statSignature(this.path);
      if (this.#cache?.signature === current) return this.#cache;
      this.#bytes.throwIfRefused(current);
      this.#cache = null;
      // The bytes are the version the descriptor they came from had (its fstat): what the path holds by now
      // may be a later save, which the next look (or a write's conditional replace) sees as such.
      let fileBytes: FileBytes;
      try {
        fileBytes = await this.#bytes.read();
      } catch (e) {
        // Refused half written, by a save in place that has moved on since: read what it has written by now.
        if (attempt < 3 && (await this.#bytes.changedSince(e))) continue;
        throw e;
      }
      const { bytes, signature } = fileBytes;
      // A save in place while we read: the bytes may be torn, read again.
      if ((await statSignature(this.path)) !== signature && attempt < 3) continue;
      const after = signature;
      const size = bytes.byteLength; // before the bytes go to the worker
      try {
        const { payload, identity } = await this.#reads.read({
          engine: this.#engine.name,
          filePath: this.path,
          bytes,
          limits: this.#limits,
          ...(this.#onReadProgress ? { onProgress: this.#onReadProgress } : {}),
        });
        this.#bytes.readable();
        const read = markReadTabs(await this.#engine.received(payload), identity);
        this.#cache = { signature: after, read, doc: null };
        const loaded = this.#cache;
        this.#ahead.afterRead(after, size, () => this.#prepareDocument(loaded, identity));
        return this.#cache;
      } catch (e) {
        this.#bytes.refused(after, e);
        throw e;
      }
    }
  }

  /** The document of the version `loaded` (read as `identity`) was read from, prepared; null if the file changed. */
  async #prepareDocument(loaded: Loaded & { read: ReceivedRead }, identity: string | null) {
    if (isReadOnlyFile(this.path)) return null; // never written: nothing to prepare
    const keep = preparedKeep(this.#reads, this.path, identity);
    const { bytes, signature } = await this.#bytes.read(); // again: the worker was given the first bytes
    if (signature !== loaded.signature) return null;
    const doc = await loaded.read.documentFor(bytes, this.path, this.#documentLimits());
    await prepareEveryTab(doc, loaded.read.tabs, keep);
    if (doc.releasePrepared?.()) freeBytes(bytes); // now, not at a full collection seconds later
    return doc;
  }

  #documentLimits = () => documentLimits(this.#limits);

  /**
   * The document for a write, parsed in this thread from the version the worker has read successfully
   * (so within every limit); later writes reuse it while the file is unchanged.
   */
  async #loadDocument(): Promise<LoadedDocument> {
    for (let attempt = 1; ; attempt++) {
      const loaded = await this.#load();
      if (loaded.doc) return { signature: loaded.signature, doc: loaded.doc, read: null };
      // A write reads every row of the tabs it changes: those of a read just made are finished first (paced).
      await rowsComplete(loaded.read.tabs);
      const prepared = await this.#ahead.take(loaded.signature);
      if (prepared && this.#cache === loaded && (await statSignature(this.path)) === loaded.signature) {
        return this.#keepDocument(loaded, prepared);
      }
      const { bytes, signature } = await this.#bytes.read();
      if (signature !== loaded.signature) {
        if (attempt < 3) continue; // saved again meanwhile: read (and check) the new version first
        throw new AppError('conflict', 'The workbook keeps being changed by another program; try again');
      }
      let doc: WorkbookDocument;
      try {
        doc = await loaded.read.documentFor(bytes, this.path, this.#documentLimits());
      } catch (e) {
        throw parserFailure(e, this.path);
      }
      return this.#keepDocument(loaded, doc);
    }
  }

  /** The document a write edits, kept for later writes while the file is unchanged; the worker's read is let go. */
  #keepDocument(loaded: Loaded & { read: ReceivedRead }, doc: WorkbookDocument): LoadedDocument {
    const read = { title: this.title, version: loaded.signature, tabs: loaded.read.tabs };
    if (this.#cache === loaded) this.#cache = { signature: loaded.signature, read: null, doc };
    return { signature: loaded.signature, doc, read };
  }

  /** Apply a batch of queued writes and answer each caller. Never throws. */
  async #flush(batch: WriteJob[]): Promise<void> {
    let jobs = batch;
    const failed = new Map<WriteJob, unknown>(); // failures that are final whatever happens to the others
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const done = await this.#attempt(jobs, failed);
          if (done) return;
        } catch (e) {
          if (e !== RESTART) throw e;
          jobs = jobs.filter((job) => !failed.has(job));
          continue;
        }
        if (attempt >= MAX_ATTEMPTS) {
          throw new AppError('conflict', 'The workbook keeps being changed by another program; try again');
        }
      }
    } catch (e) {
      this.#cache = null;
      const mapped = fileError(e, this.path);
      // Anything else (a serialization bug, ...) still answers with an AppError, without paths.
      const error =
        mapped instanceof AppError
          ? mapped
          : new AppError(
              'internal_error',
              `Could not write the workbook: ${(mapped as Error)?.message ?? String(mapped)}`,
            );
      for (const job of jobs) job.reject(failed.get(job) ?? error);
    } finally {
      for (const [job, error] of failed) if (!jobs.includes(job)) job.reject(error);
    }
  }

  /** A write past its tab's edge refused before the document is parsed (tab-fit-refusal.ts), while the last read is current. */
  async refusalOf(job: SourceWrite): Promise<AppError | null> {
    const cached = this.#cache;
    if (!cached?.read || (await statSignature(this.path).catch(() => null)) !== cached.signature) return null;
    // The check needs the row count alone, unless the write finds its rows by a `where`.
    if (job.options.mutationsFor) await rowsComplete(cached.read.tabs);
    return tabFitRefusal(cached.read.tabs, job, this.#engine.limits);
  }

  /**
   * One try at a batch. Returns false when another program saved the file meanwhile: the caller starts
   * over, re-reading the file and re-validating every job against the new content.
   */
  async #attempt(jobs: WriteJob[], failed: Map<WriteJob, unknown>): Promise<boolean> {
    await assertNotLocked(this.path);
    assertNotReadOnly(this.path);
    const loaded = await this.#loadDocument();
    const { doc } = loaded;
    const outcomes = new Map<WriteJob, Outcome>();
    let applied = 0;
    for (const job of jobs) {
      let plan: WritePlan;
      try {
        await doc.prepare?.(job.sourceSheetId);
        const tab = doc.tab(job.sourceSheetId);
        if (!tab) throw new AppError('sheet_not_found', `No tab with id ${job.sourceSheetId}`);
        job.options.precondition?.(tab);
        const mutations = job.options.mutationsFor?.(tab) ?? job.mutations;
        plan = planWrite(tab, mutations, {
          options: job.options,
          dates: doc.dateTargets?.(job.sourceSheetId),
        });
        // Against the tab as the jobs before this one in the batch left it: together they may not fit.
        assertTabFits(tab, plan, this.#engine.limits);
      } catch (error) {
        // Rejected before touching the document: it still matches the file, keep it cached.
        outcomes.set(job, { ok: false, error });
        continue;
      }
      try {
        await doc.apply(job.sourceSheetId, plan, job.options);
      } catch (error) {
        // Half-applied: the document is no longer trustworthy. This job fails alone; the others are redone.
        this.#cache = null;
        failed.set(
          job,
          error instanceof AppError ? error : new AppError('internal_error', 'Could not apply the write'),
        );
        throw RESTART;
      }
      outcomes.set(job, { ok: true, counts: plan.counts });
      applied++;
    }

    let snapshot: SpreadsheetSnapshot | null = null;
    if (applied > 0) {
      this.#cache = null; // modified in memory but not on disk yet
      await assertNotLocked(this.path);
      // Replaced (or appended to) only if still the version read: another program's save, even one landing this
      // instant, wins and the batch starts over from it.
      let signature: string;
      try {
        signature = await this.#save(doc, loaded.signature);
      } catch (e) {
        if (e instanceof ChangedMeanwhile) return false;
        throw fileError(e, this.path);
      }
      doc.saved?.();
      this.#cache = { signature, read: null, doc };
      snapshot = { title: this.title, version: signature, tabs: doc.tabs() };
    }

    for (const job of jobs) {
      const outcome = outcomes.get(job);
      if (outcome?.ok && snapshot)
        job.resolve({ ...outcome.counts, snapshot, ...(loaded.read ? { before: loaded.read } : {}) });
      else
        job.reject(
          outcome && !outcome.ok ? outcome.error : new AppError('internal_error', 'Write not applied'),
        );
    }
    return true;
  }

  /** The document written to the file: its new lines added in place when that is all it changed, else a replace. */
  async #save(doc: WorkbookDocument, basedOn: string): Promise<string> {
    const keeper = this.#keeper ?? undefined;
    const added = doc.appendedBytes?.() ?? null;
    if (added) doc.makeLater?.(); // lines added flush at once: rows made first, nothing written if they fail
    const appended = added && (await appendInPlace(this.path, added, { basedOn, keeper }));
    if (appended) {
      this.#bytes.written(appended, [added]);
      return appended;
    }
    const chunks = await doc.serialize();
    const whileFlushing = () => doc.makeLater?.();
    const replaced = await replaceFileAtomically(this.path, chunks, { keeper, basedOn, whileFlushing });
    this.#bytes.written(replaced, chunks);
    return replaced;
  }
}
