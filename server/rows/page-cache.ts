import { OwnerCache } from '../lib/owner-cache.ts';
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
const PAGES_PER_TAB = 32;
const pages = new OwnerCache<object, string, RenderedPage>(PAGES_PER_TAB);

export function renderPage(tab: TabRows, query: ListQuery): RenderedPage {
  return pages.get(tab.typed, JSON.stringify(query), () => {
    const result = runQuery(tab, query);
    return { rendered: renderList(result, query), total: result.total };
  });
}
