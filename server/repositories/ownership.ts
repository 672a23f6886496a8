/**
 * Ownership: the rule "one owner per spreadsheet". The owner is the one that watches a spreadsheet for outside
 * changes, records them and writes to it; anyone may read. A `Spreadsheet` asks for a lease before it watches,
 * records or writes, and gives it back when it closes.
 *
 * The contract an implementation keeps (spreadsheets/ownership.ts's in-process one; team mode's lease in
 * PostgreSQL with a time to live, store-pg/):
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

/**
 * An Ownership shared by several processes: besides the lease, the lock that puts one spreadsheet's writes and
 * recordings from every instance one after another (team mode's PostgreSQL implementation, store-pg/).
 */
export interface SharedOwnership extends Ownership {
  /** Runs `work` while no other instance runs work for this spreadsheet; resolves to its result. */
  exclusive<T>(spreadsheetId: string, work: () => Promise<T>): Promise<T>;
}

/** What a write answers when its spreadsheet's owner let it go meanwhile (the service is stopping, or handed it
 * over); also the reason a lease that lapsed is lost with. */
export function ownershipEnded(spreadsheetId: string): AppError {
  return new AppError(
    'conflict',
    `This SheetPort no longer owns spreadsheet "${spreadsheetId}" (it is stopping or handed it over), so the ` +
      'write was not made. Send it again.',
  );
}
