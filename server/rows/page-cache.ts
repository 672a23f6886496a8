import type { TabRows } from './engine.ts';
import { runQuery } from './engine.ts';
import { type Rendered, renderList } from './formats/index.ts';
import type { ListQuery } from './query.ts';

export interface RenderedPage {
  rendered: Rendered;
  total: number;
}

/**
 * Recently rendered pages per tab snapshot. A snapshot never changes (a change makes a new one), so the same
 * query on the same snapshot always gives the same bytes: a dashboard or a no-code tool polling one URL gets the
 * page from here instead of filtering, sorting and encoding it again. Small per tab, and gone with the snapshot.
 */
const pages = new WeakMap<object, Map<string, RenderedPage>>();
const PAGES_PER_TAB = 32;

export function renderPage(tab: TabRows, query: ListQuery): RenderedPage {
  let cache = pages.get(tab.typed);
  if (!cache) {
    cache = new Map();
    pages.set(tab.typed, cache);
  }
  const key = JSON.stringify(query);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key); // re-insert: Map order is the LRU order
    cache.set(key, hit);
    return hit;
  }
  const result = runQuery(tab, query);
  const page = { rendered: renderList(result, query), total: result.total };
  cache.set(key, page);
  if (cache.size > PAGES_PER_TAB) cache.delete(cache.keys().next().value!);
  return page;
}
