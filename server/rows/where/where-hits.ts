/**
 * The rows a tab's `where` keeps, found once per snapshot and text: its columns checked first (a 400 before any
 * work), then the evaluation (evaluate.ts), shared by concurrent requests that ask the same, and kept with the
 * snapshot's recent filter results, so paging through a filtered listing evaluates it once.
 */
import { OwnerCache } from '../../lib/owner-cache.ts';
import { rowsComplete } from '../../sources/tab-rows.ts';
import { columnOf, type TabRows } from '../engine.ts';
import type { WhereClause } from '../query.ts';
import { whereColumns, whereRows } from './evaluate.ts';

const RECENT_PER_TAB = 32;
const found = new OwnerCache<object, string, Promise<Uint32Array>>(RECENT_PER_TAB);

export async function whereHits(tab: TabRows, where: WhereClause): Promise<Uint32Array> {
  const columns = whereColumns(where.expression, (name) => columnOf(tab, name));
  await rowsComplete([tab]); // every row is read
  return found.get(tab.typed, where.text, () => {
    const rows = whereRows(tab, where.expression, columns);
    // A failed evaluation is not kept: the next request tries again.
    rows.catch(() => found.forget(tab.typed, where.text, rows));
    return rows;
  });
}
