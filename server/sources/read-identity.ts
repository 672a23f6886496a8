/**
 * What a tab's rows were read from, where that alone says what they hold: a local file's read is named by its
 * kept-read key (guard/kept-read.ts: the SHA-256 of the file's bytes, the engine, the read's limits and the
 * code's version), so two reads with the same key hold the same rows. A checkpoint stores the identity of the
 * rows it was made from (repositories/rules/baseline-format.ts), and a restart's first sight that reads the same
 * identity trusts it instead of comparing a million rows (seconds of decoding).
 *
 * Held beside the rows array, never on the tab: a tab made from another (a write's) is new rows, and has none.
 * Snapshots are immutable, so rows marked once hold what their read held for as long as they live.
 */
import type { TabSnapshot } from './source.ts';
import { rowsOwner } from './tab-rows.ts';

const identities = new WeakMap<object, string>();

/** Marks `rows` (a tab's `typed`, as read) as what `identity` names. */
export function markReadIdentity(rows: object, identity: string): void {
  identities.set(rows, identity);
}

/** The identity of what `rows` were read from, if they are a read's own rows and it had one. */
export function readIdentityOf(rows: object): string | undefined {
  return identities.get(rows);
}

/** Marks each tab of a read named `identity` (null: a read without one, nothing marked); returns the read. */
export function markReadTabs<T extends { tabs: readonly TabSnapshot[] }>(
  read: T,
  identity: string | null,
): T {
  // `rowsOwner`: the array `typed` is, without making a tab's rows that are still made on demand.
  if (identity !== null)
    for (const tab of read.tabs) markReadIdentity(rowsOwner(tab), `${identity} ${tab.sourceSheetId}`);
  return read;
}
