/**
 * Ownership: who watches a spreadsheet and who writes it. Anyone may read.
 *
 * - The watcher: one holder of the spreadsheet's lease at a time, across everyone sharing the Ownership. Only the
 *   holder watches the spreadsheet for outside changes and records them. A `Spreadsheet` asks for the lease before
 *   it watches, and gives it back when it closes.
 * - The writers (`writers`): with `'lease holder'` (one process: spreadsheets/ownership.ts) only the lease holder
 *   writes, and a Spreadsheet whose lease ended writes nothing more. With `'every instance'` (team mode: PostgreSQL,
 *   store-pg/ownership.ts) every instance writes, whether or not it holds the lease, and records its own writes;
 *   losing the lease only stops the watching.
 * - Turns (`exclusive`): every write turn and every recording of a spreadsheet runs inside `exclusive`, so those
 *   of all writers go one after another. In one process the Spreadsheet's own turns order them already and
 *   `exclusive` just runs the work; in team mode it is a lock across instances, and a writer brings its copy
 *   current inside it before writing (another instance may have written meanwhile).
 *
 * The lease's contract:
 * - `acquire(spreadsheetId)` resolves a `Lease` when the caller now holds it, or `null` while another holder does
 *   (the caller may ask again later). Asking again for a spreadsheet this holder holds already is the caller's
 *   mistake: it holds one lease per spreadsheet and reuses it.
 * - `renew(lease)` is called by the holder right before each side effect that needs the lease and confirms it
 *   still stands, extending it where it lapses; it resolves `false` once the lease is lost, and then `lease.lost`
 *   has fired. An implementation whose leases lapse also keeps them alive between side effects on its own
 *   schedule: a holder never runs a timer for it.
 * - `release(lease)` gives the spreadsheet up (its connection was removed, the service stops). It fires
 *   `lease.lost` with the reason given, and is harmless on a lease lost already.
 * - `lease.lost` is an `AbortSignal` that fires once, when the holder no longer holds the lease for any reason
 *   (released, lapsed, taken over); its `reason` is the `AppError` to answer a write refused because of it.
 *   A holder stops watching when it fires (and, with `'lease holder'` writers, writing), and never uses it again.
 */
import { AppError } from '../errors.ts';

export interface Lease {
  readonly spreadsheetId: string;
  /** Fires once ownership ends; `reason` is the AppError a refused write answers with. */
  readonly lost: AbortSignal;
}

/** Who writes a spreadsheet: its lease holder alone (one process), or every instance in turn (team mode). */
export type Writers = 'lease holder' | 'every instance';

export interface Ownership {
  readonly writers: Writers;
  /** Hold the spreadsheet's lease: it, or null while another holder has it. */
  acquire(spreadsheetId: string): Promise<Lease | null>;
  /** Still the holder? Extends the lease; false once it is lost (and `lease.lost` has fired). */
  renew(lease: Lease): Promise<boolean>;
  /** Give the spreadsheet up; `lease.lost` fires with `reason` (default: the holder let it go). */
  release(lease: Lease, reason?: AppError): Promise<void>;
  /** Runs `work` while no other writer or recorder of this spreadsheet runs its own; resolves to its result. */
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
