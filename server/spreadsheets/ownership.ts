/**
 * The in-process owner and what a write refused for ownership answers. The rule "one owner per spreadsheet" and
 * the contract every Ownership keeps are in repositories/ownership.ts (an Ownership may live in a database).
 */
import type { AppError } from '../errors.ts';
import {
  type Lease,
  type Ownership,
  ownershipEnded,
  type SharedOwnership,
} from '../repositories/ownership.ts';

export type { Lease, Ownership, SharedOwnership } from '../repositories/ownership.ts';
export { ownershipEnded };

/** An Ownership shared with other instances (team mode): writes and recordings run under its `exclusive`. */
export function isShared(ownership: Ownership): ownership is SharedOwnership {
  return typeof (ownership as Partial<SharedOwnership>).exclusive === 'function';
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
