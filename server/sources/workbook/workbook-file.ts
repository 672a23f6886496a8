/**
 * Everything that happens to one workbook file on disk: reading, the parsed-document cache, serialized and
 * group-committed writes, outside-change detection, lock refusal and the atomic replace.
 *
 * One instance per resolved path (see `fileFor`), shared by every Source on that path, so two Sources
 * writing the same file still take turns.
 */
import { statSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../errors.ts';
import type { Mutation, SpreadsheetSnapshot, WriteOptions, WriteResult } from '../source.ts';
import { replaceFileAtomically } from './atomic-file.ts';
import type { DocumentParser, WorkbookDocument } from './document.ts';
import { assertNotLocked, fileError } from './lock.ts';
import { planWrite, type WritePlan } from './plan.ts';
import { FileQueue } from './write-queue.ts';

interface WriteJob {
  sourceSheetId: string;
  mutations: Mutation[];
  options: WriteOptions;
  resolve(result: WriteResult): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; counts: WritePlan['counts'] } | { ok: false; error: unknown };

interface Loaded {
  doc: WorkbookDocument;
  /** Stat signature of the file the document was parsed from (or last written as). */
  signature: string;
}

/** How often a write re-reads and re-applies when another program keeps saving the file under us. */
const MAX_ATTEMPTS = 5;
/** Thrown inside a flush to start it over from the file (the document in memory is not trustworthy). */
const RESTART = Symbol('restart');

/** The cheap change token: equal signatures mean the same file content (mtime, size and inode). */
export async function statSignature(filePath: string): Promise<string> {
  try {
    const st = await fs.stat(filePath);
    return `${st.mtimeMs}:${st.size}:${st.ino}`;
  } catch (e) {
    throw fileError(e, filePath);
  }
}

export class WorkbookFile {
  readonly path: string;
  readonly title: string;
  readonly #parse: DocumentParser;
  readonly #queue: FileQueue<WriteJob>;
  /** Parsed document plus the signature of the file it matches; dropped whenever it may be wrong. */
  #cache: Loaded | null = null;
  /** Open Sources using this file (the registry forgets the file, and its memory, at zero). */
  users = 0;

  constructor(filePath: string, parse: DocumentParser) {
    this.path = filePath;
    this.title = path.basename(filePath);
    this.#parse = parse;
    this.#queue = new FileQueue((jobs) => this.#flush(jobs));
  }

  /**
   * Checked before every read, so it must be cheap: a synchronous stat of a cached inode costs a few
   * microseconds, while the async form pays a thread-pool round trip that dominated small reads.
   */
  async version(): Promise<string> {
    try {
      const st = statSync(this.path);
      return `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch (e) {
      throw fileError(e, this.path);
    }
  }

  read(): Promise<SpreadsheetSnapshot> {
    // Through the queue: the cached document may be in the middle of a write otherwise.
    return this.#queue.run(async () => {
      const { doc, signature } = await this.#load();
      return { title: this.title, version: signature, tabs: doc.tabs() };
    });
  }

  write(sourceSheetId: string, mutations: Mutation[], options: WriteOptions): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.#queue.submit({ sourceSheetId, mutations, options, resolve, reject });
    });
  }

  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** The parsed file: the cached document while the file is unchanged, else a fresh parse. */
  async #load(): Promise<Loaded> {
    let before = await statSignature(this.path);
    if (this.#cache?.signature === before) return this.#cache;
    this.#cache = null;
    for (let attempt = 1; ; attempt++) {
      let bytes: Uint8Array;
      try {
        bytes = await fs.readFile(this.path);
      } catch (e) {
        throw fileError(e, this.path);
      }
      // Only trust the bytes if the file did not change while we read them (a save in progress).
      const after = await statSignature(this.path);
      if (after === before || attempt >= 3) {
        const doc = await this.#parse(bytes, this.path);
        this.#cache = { doc, signature: after };
        return this.#cache;
      }
      before = after;
    }
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
      // Anything else (an ExcelJS serialization bug, ...) still answers with an AppError, without paths.
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

  /**
   * One try at a batch. Returns false when another program saved the file meanwhile: the caller starts
   * over, re-reading the file and re-validating every job against the new content.
   */
  async #attempt(jobs: WriteJob[], failed: Map<WriteJob, unknown>): Promise<boolean> {
    await assertNotLocked(this.path);
    const loaded = await this.#load();
    const { doc } = loaded;
    const outcomes = new Map<WriteJob, Outcome>();
    let applied = 0;
    for (const job of jobs) {
      let plan: WritePlan;
      try {
        const tab = doc.tab(job.sourceSheetId);
        if (!tab) throw new AppError('sheet_not_found', `No tab with id ${job.sourceSheetId}`);
        doc.assertWritable();
        job.options.precondition?.(tab);
        plan = planWrite(tab, job.mutations);
      } catch (error) {
        // Rejected before touching the document: it still matches the file, keep it cached.
        outcomes.set(job, { ok: false, error });
        continue;
      }
      try {
        doc.apply(job.sourceSheetId, plan, job.options);
      } catch (error) {
        // Half-applied: the document is no longer trustworthy. Fail this job alone and redo the others
        // from the file.
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
      const bytes = await doc.serialize();
      // Another program saved since we read? Its version wins: start over from it.
      if ((await statSignature(this.path)) !== loaded.signature) return false;
      await assertNotLocked(this.path);
      try {
        await replaceFileAtomically(this.path, bytes);
      } catch (e) {
        throw fileError(e, this.path);
      }
      const signature = await statSignature(this.path);
      this.#cache = { doc, signature };
      snapshot = { title: this.title, version: signature, tabs: doc.tabs() };
    }

    for (const job of jobs) {
      const outcome = outcomes.get(job);
      if (outcome?.ok && snapshot) job.resolve({ ...outcome.counts, snapshot });
      else
        job.reject(
          outcome && !outcome.ok ? outcome.error : new AppError('internal_error', 'Write not applied'),
        );
    }
    return true;
  }
}

/** One WorkbookFile per resolved path for the whole process. */
const files = new Map<string, WorkbookFile>();

export function fileFor(filePath: string, parse: DocumentParser): WorkbookFile {
  const key = path.resolve(filePath);
  let file = files.get(key);
  if (!file) {
    file = new WorkbookFile(key, parse);
    files.set(key, file);
  }
  file.users++;
  return file;
}

/** A Source let go of the file: forget it (and its cached document) once nobody uses it. */
export async function releaseFile(file: WorkbookFile): Promise<void> {
  file.users--;
  await file.idle();
  if (file.users <= 0 && files.get(file.path) === file) files.delete(file.path);
}
