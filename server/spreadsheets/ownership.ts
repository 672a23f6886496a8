/**
 * The in-process owner and what a write refused for ownership answers. The rule "one owner per spreadsheet" and
 * the contract every Ownership keeps are in repositories/ownership.ts (an Ownership may live in a database).
 */
import { AppError } from '../errors.ts';
import type { Lease, Ownership } from '../repositories/ownership.ts';

export type { Lease, Ownership, SharedOwnership } from '../repositories/ownership.ts';

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
