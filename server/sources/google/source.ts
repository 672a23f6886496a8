/**
 * A Google spreadsheet as a Source. Reads are one Sheets call (read.ts) plus one Drive version check; the
 * version answers from the last check (freshness.ts); writes are checked against the tab as Google has it now
 * (the last read when Drive says nothing changed since), then applied as one atomic request (write.ts) and
 * answered with the spreadsheet as it is afterwards. Writes to one spreadsheet run one at a time, so each plans
 * against the state the previous one left.
 *
 * Every Sheets call is paid from the account's budget (budget.ts). A read past the budget, or while Google is
 * unavailable, gives the last snapshot again, and `freshness()` says how old it is and that it is stale.
 */
import { AppError, isAppError } from '../../errors.ts';
import { realTimers } from '../../lib/timers.ts';
import { assertStorable } from '../cell-rules.ts';
import type { SourceOptions } from '../kind.ts';
import { planWrite } from '../plan.ts';
import { assertTabFits } from '../sheet-limits.ts';
import type {
  CellLimits,
  Mutation,
  Source,
  SourceCapabilities,
  SourceFreshness,
  SourceWrite,
  SpreadsheetSnapshot,
  Unwatch,
  WatchInterest,
  WriteOptions,
  WriteResult,
} from '../source.ts';
import { budgetFor, DEFAULT_BUDGET, QuotaBudget } from './budget.ts';
import { type GoogleClients, googleClients, googleSettings } from './client.ts';
import { unavailable } from './errors.ts';
import { DEFAULT_MAX_AGE_MS, Freshness } from './freshness.ts';
import { sendingWithinCells } from './grid-cells.ts';
import { type ReadBook, readBook, type SheetMeta } from './read.ts';
import { DEFAULT_RETRY, type RetryPolicy, withRetry } from './retry.ts';
import { applyPlan, sendings } from './write.ts';

/**
 * Google Sheets' own limits: 50,000 characters in a cell; columns up to ZZZ (18,278); 10,000,000 cells in a
 * spreadsheet, all tabs' grids together (so no tab has more rows than that either).
 */
const GOOGLE_LIMITS: CellLimits = {
  maxCellChars: 50_000,
  maxColumns: 18_278,
  maxRows: 10_000_000,
  maxCells: 10_000_000,
};

const CAPABILITIES: SourceCapabilities = { formulas: true, styles: true, limits: GOOGLE_LIMITS };

export class GoogleSource implements Source {
  readonly kind = 'google';
  readonly capabilities = CAPABILITIES;
  readonly #spreadsheetId: string;
  readonly #options: SourceOptions;
  readonly #retry: RetryPolicy;
  readonly #now: () => number;
  readonly #maxAgeMs: number;
  #clients: GoogleClients | null = null;
  #freshness: Freshness | null = null;
  #budget: QuotaBudget | null = null;
  #sheets = new Map<string, SheetMeta>();
  /** The last snapshot read, and when (epoch ms) it was last known to match Google. */
  #last: { snapshot: SpreadsheetSnapshot; book: ReadBook; confirmedAt: number } | null = null;
  /** The last read was answered from `#last` because Google could not be asked. */
  #servedStale = false;

  constructor(spreadsheetId: string, options: SourceOptions) {
    this.#spreadsheetId = spreadsheetId;
    this.#options = options;
    const settings = googleSettings(options.google);
    const baseMs = settings.retryBaseMs;
    this.#retry = baseMs === undefined ? DEFAULT_RETRY : { ...DEFAULT_RETRY, baseMs };
    this.#now = settings.now ?? options.now ?? Date.now;
    this.#maxAgeMs = settings.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  }

  /** Clients are made on first use, so a missing login is an answer to a request, not a failure to open. */
  #parts(): { clients: GoogleClients; freshness: Freshness; budget: QuotaBudget } {
    if (!this.#clients || !this.#freshness || !this.#budget) {
      const clients = googleClients(this.#options);
      const settings = googleSettings(this.#options.google);
      const { maxAgeMs, waitMs } = settings;
      const timers = this.#options.timers ?? realTimers;
      this.#freshness = new Freshness(clients, this.#spreadsheetId, {
        timers,
        now: this.#now,
        ...(this.#options.pollMs !== undefined ? { pollMs: this.#options.pollMs } : {}),
        ...(maxAgeMs !== undefined ? { maxAgeMs } : {}),
        ...(waitMs !== undefined ? { waitMs } : {}),
        ...(this.#options.log ? { log: this.#options.log } : {}),
        retry: this.#retry,
        explainNotFound: (driveSays) => this.#sheetsVerdict(driveSays),
      });
      this.#budget = budgetFor(
        this.#options,
        clients.account,
        () =>
          new QuotaBudget(
            {
              readsPerMinute: settings.readsPerMinute ?? DEFAULT_BUDGET.readsPerMinute,
              writesPerMinute: settings.writesPerMinute ?? DEFAULT_BUDGET.writesPerMinute,
              queueMs: settings.writeQueueMs ?? DEFAULT_BUDGET.queueMs,
              queueLength: DEFAULT_BUDGET.queueLength,
            },
            this.#now,
            (ms) => new Promise((resolve) => timers.after(ms, resolve)),
            this.#options.sharedCalls ? { calls: this.#options.sharedCalls, account: clients.account } : null,
          ),
      );
      this.#clients = clients;
    }
    return { clients: this.#clients, freshness: this.#freshness, budget: this.#budget };
  }

  version(): Promise<string> {
    return this.#parts().freshness.current();
  }

  /** Past the read budget or while Google is unavailable, the last snapshot again (see freshness()). */
  async read(): Promise<SpreadsheetSnapshot> {
    const last = this.#last;
    const { budget } = this.#parts();
    if (last && !(await budget.tryTake('read'))) {
      this.#servedStale = true;
      return last.snapshot;
    }
    try {
      const { snapshot } = await this.#readAll(last ? 'paid' : 'pay');
      return snapshot;
    } catch (err) {
      if (!last || !isAppError(err) || err.code !== 'upstream_unavailable') throw err;
      this.#servedStale = true;
      return last.snapshot;
    }
  }

  /** `pay`: take a read from the budget first (waiting like a write); `paid`: the caller has. */
  async #readAll(payment: 'pay' | 'paid'): Promise<{ snapshot: SpreadsheetSnapshot; book: ReadBook }> {
    const { clients, freshness, budget } = this.#parts();
    if (payment === 'pay') await budget.take('read');
    // Version first: a change landing between the two calls is then seen again by the next check.
    const version = await freshness.check();
    const confirmedAt = freshness.lastCheck().at;
    const book = await withRetry(() => readBook(clients, this.#spreadsheetId), this.#retry);
    this.#sheets = book.sheets;
    const snapshot = { title: book.title, version, tabs: book.tabs };
    this.#last = { snapshot, book, confirmedAt };
    this.#servedStale = false;
    return { snapshot, book };
  }

  /**
   * Drive's 404 told apart by Sheets (freshness.ts): a missing spreadsheet (404) or one the account may not open
   * (403, google_access_denied). One small Sheets call, paid from the read budget; past it Google cannot be asked
   * now (503, and readers are served the copy meanwhile).
   */
  async #sheetsVerdict(driveSays: AppError): Promise<unknown> {
    const { clients, budget } = this.#parts();
    if (!(await budget.tryTake('read'))) return unavailable();
    try {
      await withRetry(
        () =>
          clients.sheets.spreadsheets.get({ spreadsheetId: this.#spreadsheetId, fields: 'spreadsheetId' }),
        this.#retry,
      );
      return driveSays;
    } catch (err) {
      return err;
    }
  }

  /** The tabs as Google has them now: the last read when Drive says nothing changed since (no Sheets call). */
  async #currentBook(): Promise<{ snapshot: SpreadsheetSnapshot; book: ReadBook }> {
    const last = this.#last;
    if (last && (await this.#parts().freshness.check()) === last.snapshot.version) {
      this.#sheets = last.book.sheets;
      return last;
    }
    return this.#readAll('pay');
  }

  freshness(): SourceFreshness {
    const last = this.#last;
    if (!last) return { ageMs: 0, stale: false };
    const check = this.#freshness?.lastCheck();
    const matches = check?.version === last.snapshot.version;
    const confirmedAt = matches && check ? Math.max(check.at, last.confirmedAt) : last.confirmedAt;
    const ageMs = Math.max(0, this.#now() - confirmedAt);
    const newerKnown = check?.version != null && !matches;
    return {
      ageMs,
      stale: this.#servedStale || newerKnown || check?.failing === true || ageMs > this.#maxAgeMs,
    };
  }

  /** One request after another (each reads the book its predecessor left): Sheets has no group commit. */
  async write(writes: readonly SourceWrite[]): Promise<PromiseSettledResult<WriteResult>[]> {
    const settled: PromiseSettledResult<WriteResult>[] = [];
    for (const { sourceSheetId, mutations, options } of writes) {
      try {
        settled.push({ status: 'fulfilled', value: await this.#write(sourceSheetId, mutations, options) });
      } catch (reason) {
        settled.push({ status: 'rejected', reason });
      }
    }
    return settled;
  }

  async #write(sourceSheetId: string, given: Mutation[], options: WriteOptions): Promise<WriteResult> {
    if (!options.mutationsFor) assertStorable(given, GOOGLE_LIMITS, options);
    const { clients, freshness, budget } = this.#parts();
    const { snapshot } = await this.#currentBook();
    const tab = snapshot.tabs.find((t) => t.sourceSheetId === sourceSheetId);
    const sheet = this.#sheets.get(sourceSheetId);
    if (!tab || !sheet) {
      throw new AppError('sheet_not_found', 'No such tab in this spreadsheet.', { sheet_id: sourceSheetId });
    }
    options.precondition?.(tab);
    const mutations = options.mutationsFor?.(tab) ?? given;
    if (options.mutationsFor) assertStorable(mutations, GOOGLE_LIMITS, options);
    const plan = planWrite(tab, mutations, { options, dates: sheet.dates.targets(tab) });
    assertTabFits(tab, plan, GOOGLE_LIMITS);
    const sending = sendingWithinCells(
      sendings({ sheet, tab }, plan, options),
      this.#sheets,
      sheet,
      GOOGLE_LIMITS,
    );
    // The read that answers the write is reserved first: past either budget the write is refused before anything
    // is written, never after.
    await budget.take('read');
    await budget.take('write');
    try {
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
        sending,
      );
    } catch (err) {
      // The tab went away (deleted or renamed in the browser) after the look above: Drive is asked again now,
      // so the next read sees the version move and shows the tabs as they are.
      if (isAppError(err) && err.code === 'sheet_not_found') await freshness.check().catch(() => {});
      throw err;
    }
    return { ...plan.counts, snapshot: await this.#readAfterWrite(snapshot) };
  }

  /**
   * The answer to a write shows it: read now (paid before writing). The write has landed by then, so a failed
   * read must not fail the write, or a client retrying the "failed" request would append its rows twice: the
   * answer keeps the snapshot from before, marked stale, and the next version check (Drive's version moved)
   * re-reads and records the change like an outside edit.
   */
  async #readAfterWrite(before: SpreadsheetSnapshot): Promise<SpreadsheetSnapshot> {
    try {
      return (await this.#readAll('paid')).snapshot;
    } catch (err) {
      this.#options.log?.(
        'Google: the read after a write failed; the write stands and is read again later',
        err,
      );
      this.#servedStale = true;
      return before;
    }
  }

  watch(onOutsideChange: () => void, interest?: WatchInterest): Unwatch {
    return this.#parts().freshness.watch(onOutsideChange, interest);
  }

  async close(): Promise<void> {
    this.#freshness?.stop();
  }
}
