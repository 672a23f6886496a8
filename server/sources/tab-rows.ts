/**
 * A tab's rows without making them all: a large workbook tab just read holds its cells as the parse thread's
 * flat columns, and its million row arrays are made behind its first answers (workbook/rows-on-demand.ts). A
 * plain page, one row, the row count and the caches keyed by the rows need no more than that; whatever reads
 * `typed` itself makes the rest at once.
 */
import type { CellValue, TabSnapshot } from './source.ts';

type Rows = Pick<TabSnapshot, 'typed' | 'onDemand'>;

/** How many data rows the tab has, without making them. */
export function rowCountOf(tab: Rows): number {
  return tab.onDemand ? tab.onDemand.rowCount : tab.typed.length;
}

/** Data row `index` (0-based), or undefined past the end. */
export function rowOf(tab: Rows, index: number): CellValue[] | undefined {
  const lazy = tab.onDemand;
  if (!lazy) return tab.typed[index];
  return index >= 0 && index < lazy.rowCount && Number.isInteger(index) ? lazy.row(index) : undefined;
}

/** What caches of a tab's rows key by: `typed` itself, which an on-demand tab's array already is. */
export function rowsOwner(tab: Rows): CellValue[][] {
  return tab.onDemand ? tab.onDemand.owner : tab.typed;
}

/** Once every row of every tab is made: work over whole tabs waits here rather than making them at once. */
export async function rowsComplete(tabs: readonly Rows[]): Promise<void> {
  for (const tab of tabs) if (tab.onDemand) await tab.onDemand.complete;
}
