import { OwnerCache } from '../lib/owner-cache.ts';
import { rowsComplete, rowsOwner } from '../sources/tab-rows.ts';
import type { TabRows } from './engine.ts';
import { prepareQuery, runQuery } from './engine.ts';
import { type Rendered, renderList } from './formats/index.ts';
import type { ListQuery } from './query.ts';
import { whereHits } from './where/where-hits.ts';

export interface RenderedPage {
  rendered: Rendered;
  total: number;
}

/**
 * Recently rendered pages per tab snapshot. A snapshot never changes (a change makes a new one), so the same
 * query on the same snapshot always gives the same bytes: a dashboard or a no-code tool polling one URL gets the
 * page from here instead of filtering, sorting and encoding it again. Small per tab, and gone with the snapshot.
 */
const PAGES_PER_TAB = 32;
const pages = new OwnerCache<object, string, RenderedPage>(PAGES_PER_TAB);

/** The page `query` asks of `tab`: from the cache, or its `where` found (paced on a large tab), then rendered. */
export async function renderPage(tab: TabRows, query: ListQuery): Promise<RenderedPage> {
  const key = pageKey(query);
  const cached = pages.peek(rowsOwner(tab), key);
  if (cached) return cached;
  // A tab just read answers a plain page from the rows made so far; a filter or a sort reads every row.
  if (!readsRowsAsMade(query)) await rowsComplete([tab]);
  const hits = query.where ? await whereHits(tab, query.where) : undefined;
  await prepareQuery(tab, query);
  return pages.get(rowsOwner(tab), key, () => {
    const result = runQuery(tab, query, hits);
    return { rendered: renderList(result, query), total: result.total };
  });
}

/** A page of rows in the tab's order, as stored: it reads only the rows it shows. */
function readsRowsAsMade(query: ListQuery): boolean {
  return (
    query.filters.length === 0 && query.where === null && query.sort.length === 0 && query.values === 'typed'
  );
}

/** Each query's key, kept while the query is: a query parsed once and asked again (http/list-query.ts) is keyed once. */
const keys = new WeakMap<ListQuery, string>();

/**
 * The query as a cache key: every field but `where` as JSON, then `where` by its text (the parsed tree adds
 * nothing to tell two apart). No replacer: one called for every key was a sixth of a cached page's cost.
 */
export function pageKey(query: ListQuery): string {
  let key = keys.get(query);
  if (key === undefined) {
    const { where, ...rest } = query;
    key = where ? `${JSON.stringify(rest)}\n${where.text}` : JSON.stringify(rest);
    keys.set(query, key);
  }
  return key;
}
