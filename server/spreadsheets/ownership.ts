/**
 * Ownership inside one process, and what a write refused for ownership answers. Who watches and who writes, and
 * the contract every Ownership keeps, are in repositories/ownership.ts (an Ownership may live in a database).
 */
import type { AppError } from '../errors.ts';
import { type Lease, type Ownership, ownershipEnded, type Writers } from '../repositories/ownership.ts';

export type { Lease, Ownership } from '../repositories/ownership.ts';
export { ownershipEnded };

/**
 * Ownership inside one process: one holder at a time holds each spreadsheet's lease (a second `acquire` of a held
 * spreadsheet is null until the first lease is released), and only that holder writes. Leases never lapse. The
 * Spreadsheet's own turns already put its writes and recordings one after another, so `exclusive` just runs them.
 */
export class InProcessOwnership implements Ownership {
  readonly writers: Writers = 'lease holder';
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

  exclusive<T>(_spreadsheetId: string, work: () => Promise<T>): Promise<T> {
    return work();
  }
}
