import { AppError } from '../errors.ts';
import { excerpt } from '../lib/redact-secrets.ts';
import type { SpreadsheetSnapshot, TabSnapshot } from '../sources/source.ts';

/**
 * How a request names a tab: by its stable id (the source's own sheet id, the second half of a public
 * `sheet_id`), or by its name as a user types it.
 */
export type TabRef = { sourceSheetId: string } | { name: string };

/** The most of a tab name a message quotes. */
const MAX_QUOTED_NAME = 200;

/**
 * The one rule for finding a tab, used by every route, the CLI and webhook registration:
 * - by id: the tab with that source sheet id, whatever it is called now;
 * - by name: the tab with exactly that name, else the one tab whose name differs only in letter case
 *   (as spreadsheet programs treat sheet names in formulas). Two tabs differing only in case need the exact name.
 * Anything else is 404 `sheet_not_found`, naming the tabs there are.
 */
export function findTab(snapshot: SpreadsheetSnapshot, ref: TabRef): TabSnapshot {
  const tabs = snapshot.tabs;
  if ('sourceSheetId' in ref) {
    const tab = tabs.find((t) => t.sourceSheetId === ref.sourceSheetId);
    if (tab) return tab;
    throw new AppError(
      'sheet_not_found',
      'No tab with this sheet_id in the spreadsheet (it may have been deleted).',
    );
  }
  const exact = tabs.find((t) => t.name === ref.name);
  if (exact) return exact;
  // Lower-casing never shortens a name and at most doubles it, so a name more than twice a tab's cannot fold to
  // it; and a name can be as long as a request body: it is lower-cased only when some tab could match.
  const candidates = tabs.filter((t) => ref.name.length <= 2 * t.name.length);
  const lower = candidates.length > 0 ? ref.name.toLowerCase() : '';
  const folded = candidates.filter((t) => t.name.toLowerCase() === lower);
  if (folded.length === 1) return folded[0] as TabSnapshot;
  const listed = (some: readonly TabSnapshot[]) => some.map((t) => `"${t.name}"`).join(', ') || '(none)';
  // The name as the message quotes it: a bounded excerpt, however long the name a client sent.
  const name = excerpt(ref.name, MAX_QUOTED_NAME);
  const message =
    folded.length > 1
      ? `No tab named exactly "${name}"; the tabs ${listed(folded)} differ from it only in letter case: ` +
        'name one of them exactly.'
      : `No tab named "${name}" in this spreadsheet (a tab renamed or deleted since is gone under its old ` +
        `name); its tabs: ${listed(tabs)}.`;
  throw new AppError('sheet_not_found', message, { sheet: ref.name });
}
