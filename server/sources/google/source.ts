/**
 * A Google spreadsheet as a Source. Reads are one Sheets call (read.ts) plus one Drive version check; the
 * version answers from the last check (freshness.ts); writes are checked against the tab as Google has it now,
 * then applied as one atomic request (write.ts) and answered with the spreadsheet as it is afterwards.
 * Writes to one spreadsheet run one at a time, so each plans against the state the previous one left.
 */
import { AppError } from '../../errors.ts';
import { assertStorable } from '../cell-rules.ts';
import type { SourceOptions } from '../kind.ts';
import { planWrite } from '../plan.ts';
import type {
  CellLimits,
  Mutation,
  Source,
  SourceCapabilities,
  SpreadsheetSnapshot,
  Unwatch,
  WriteOptions,
  WriteResult,
} from '../source.ts';
import { type GoogleClients, googleClients, googleSettings } from './client.ts';
import { Freshness } from './freshness.ts';
import { type ReadBook, readBook, type SheetMeta } from './read.ts';
import { DEFAULT_RETRY, type RetryPolicy, withRetry } from './retry.ts';
import { applyPlan } from './write.ts';

/** Google Sheets' own limits: 50,000 characters in a cell; columns up to ZZZ (18,278). */
export const GOOGLE_LIMITS: CellLimits = { maxCellChars: 50_000, maxColumns: 18_278 };

const CAPABILITIES: SourceCapabilities = { formulas: true, styles: true, limits: GOOGLE_LIMITS };

export class GoogleSource implements Source {
  readonly kind = 'google';
  readonly capabilities = CAPABILITIES;
  readonly #spreadsheetId: string;
  readonly #options: SourceOptions;
  readonly #retry: RetryPolicy;
  #clients: GoogleClients | null = null;
  #freshness: Freshness | null = null;
  #sheets = new Map<string, SheetMeta>();
  #writes: Promise<unknown> = Promise.resolve();

  constructor(spreadsheetId: string, options: SourceOptions) {
    this.#spreadsheetId = spreadsheetId;
    this.#options = options;
    const baseMs = googleSettings(options.google).retryBaseMs;
    this.#retry = baseMs === undefined ? DEFAULT_RETRY : { ...DEFAULT_RETRY, baseMs };
  }

  /** Clients are made on first use, so a missing login is an answer to a request, not a failure to open. */
  #parts(): { clients: GoogleClients; freshness: Freshness } {
    if (!this.#clients || !this.#freshness) {
      this.#clients = googleClients(this.#options);
      const { maxAgeMs, waitMs } = googleSettings(this.#options.google);
      this.#freshness = new Freshness(this.#clients, this.#spreadsheetId, {
        ...(this.#options.timers ? { timers: this.#options.timers } : {}),
        ...(this.#options.pollMs !== undefined ? { pollMs: this.#options.pollMs } : {}),
        ...(maxAgeMs !== undefined ? { maxAgeMs } : {}),
        ...(waitMs !== undefined ? { waitMs } : {}),
        ...(this.#options.log ? { log: this.#options.log } : {}),
        retry: this.#retry,
      });
    }
    return { clients: this.#clients, freshness: this.#freshness };
  }

  version(): Promise<string> {
    return this.#parts().freshness.current();
  }

  async read(): Promise<SpreadsheetSnapshot> {
    const { snapshot } = await this.#readAll();
    return snapshot;
  }

  async #readAll(): Promise<{ snapshot: SpreadsheetSnapshot; book: ReadBook }> {
    const { clients, freshness } = this.#parts();
    // Version first: a change landing between the two calls is then seen again by the next check.
    const version = await freshness.check();
    const book = await withRetry(() => readBook(clients, this.#spreadsheetId), this.#retry);
    this.#sheets = book.sheets;
    return { snapshot: { title: book.title, version, tabs: book.tabs }, book };
  }

  write(sourceSheetId: string, mutations: Mutation[], options: WriteOptions): Promise<WriteResult> {
    const run = this.#writes.then(
      () => this.#write(sourceSheetId, mutations, options),
      () => this.#write(sourceSheetId, mutations, options),
    );
    this.#writes = run.catch(() => {});
    return run;
  }

  async #write(sourceSheetId: string, mutations: Mutation[], options: WriteOptions): Promise<WriteResult> {
    assertStorable(mutations, GOOGLE_LIMITS);
    const { clients, freshness } = this.#parts();
    const { snapshot } = await this.#readAll();
    const tab = snapshot.tabs.find((t) => t.sourceSheetId === sourceSheetId);
    const sheet = this.#sheets.get(sourceSheetId);
    if (!tab || !sheet) {
      throw new AppError('sheet_not_found', 'No such tab in this spreadsheet.', { sheet_id: sourceSheetId });
    }
    options.precondition?.(tab);
    const plan = planWrite(tab, mutations);
    await applyPlan(
      {
        clients,
        spreadsheetId: this.#spreadsheetId,
        sheet,
        tab,
        retry: this.#retry,
        versionBefore: snapshot.version,
        checkVersion: () => freshness.check(),
      },
      plan,
      options,
    );
    return { ...plan.counts, snapshot: await this.read() };
  }

  watch(onOutsideChange: () => void): Unwatch {
    return this.#parts().freshness.watch(onOutsideChange);
  }

  async close(): Promise<void> {
    this.#freshness?.stop();
  }
}
