/**
 * Ownership: the rule "one owner per spreadsheet". The owner is the one that watches a spreadsheet for outside
 * changes, records them and writes to it; anyone may read. A `Spreadsheet` asks for a lease before it watches,
 * records or writes, and gives it back when it closes.
 *
 * The contract an implementation keeps (the in-process one below today; a database lease with a time to live
 * next, without the routes noticing):
 * - `acquire(spreadsheetId)` resolves a `Lease` when the caller now owns the spreadsheet, or `null` while another
 *   owner holds it (the caller then reads but neither watches, records nor writes; it may ask again later).
 *   Asking again for a spreadsheet this holder owns already is the caller's mistake: it holds one lease per
 *   spreadsheet and reuses it.
 * - `renew(lease)` is called by the holder right before each side effect (a write to the source, a recording)
 *   and confirms the lease still stands, extending it where it lapses; it resolves `false` once the lease is
 *   lost, and then `lease.lost` has fired. An implementation whose leases lapse also keeps them alive between
 *   side effects on its own schedule: a holder never runs a timer for it.
 * - `release(lease)` gives the spreadsheet up (its connection was removed, the service stops). It fires
 *   `lease.lost` with the reason given, and is harmless on a lease lost already.
 * - `lease.lost` is an `AbortSignal` that fires once, when the holder no longer owns the spreadsheet for any
 *   reason (released, lapsed, taken over); its `reason` is the `AppError` to answer a write refused because of it.
 *   A holder stops watching and writing when it fires, and never uses the lease again.
 */
import { AppError } from '../errors.ts';

export interface Lease {
  readonly spreadsheetId: string;
  /** Fires once ownership ends; `reason` is the AppError a refused write answers with. */
  readonly lost: AbortSignal;
}

export interface Ownership {
  /** Own the spreadsheet: its lease, or null while another owner holds it. */
  acquire(spreadsheetId: string): Promise<Lease | null>;
  /** Still the owner? Extends the lease; false once it is lost (and `lease.lost` has fired). */
  renew(lease: Lease): Promise<boolean>;
  /** Give the spreadsheet up; `lease.lost` fires with `reason` (default: the owner let it go). */
  release(lease: Lease, reason?: AppError): Promise<void>;
}

/** What a write answers when its spreadsheet's owner let it go meanwhile (the service is stopping). */
export function ownershipEnded(spreadsheetId: string): AppError {
  return new AppError(
    'conflict',
    `This SheetPort no longer owns spreadsheet "${spreadsheetId}" (it is stopping or handed it over), so the ` +
      'write was not made. Send it again.',
  );
}

/**
 * The owner inside one process: this process owns every spreadsheet it opens, and one holder at a time owns each
 * one (a second `acquire` of a held spreadsheet is null until the first lease is released). Leases never lapse.
 */
export class InProcessOwnership implements Ownership {
  readonly #held = new Map<string, { lease: Lease; end: AbortController }>();

  async acquire(spreadsheetId: string): Promise<Lease | null> {
    if (this.#held.has(spreadsheetId)) return null;
    const end = new AbortController();
    const lease: Lease = { spreadsheetId, lost: end.signal };
    this.#held.set(spreadsheetId, { lease, end });
    return lease;
  }

  async renew(lease: Lease): Promise<boolean> {
    return this.#held.get(lease.spreadsheetId)?.lease === lease && !lease.lost.aborted;
  }

  async release(lease: Lease, reason?: AppError): Promise<void> {
    const held = this.#held.get(lease.spreadsheetId);
    if (held?.lease !== lease) return;
    this.#held.delete(lease.spreadsheetId);
    held.end.abort(reason ?? ownershipEnded(lease.spreadsheetId));
  }
}
