import { AppError } from '../errors.ts';
import type { SpreadsheetSnapshot, TabSnapshot } from '../sources/source.ts';

/**
 * How a request names a tab: by its stable id (the source's own sheet id, the second half of a public
 * `sheet_id`), or by its name as a user types it.
 */
export type TabRef = { sourceSheetId: string } | { name: string };

/**
 * The one rule for finding a tab, used by every route, the CLI and webhook registration:
 * - by id: the tab with that source sheet id, whatever it is called now;
 * - by name: the tab with exactly that name, else the one tab whose name differs only in letter case
 *   (as spreadsheet programs treat sheet names in formulas). Two tabs differing only in case need the exact name.
 * Anything else is 404 `sheet_not_found`, naming the tabs there are.
 */
export function resolveTab(snapshot: SpreadsheetSnapshot, ref: TabRef): TabSnapshot {
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
  const folded = tabs.filter((t) => t.name.toLowerCase() === ref.name.toLowerCase());
  if (folded.length === 1) return folded[0] as TabSnapshot;
  const listed = (some: readonly TabSnapshot[]) => some.map((t) => `"${t.name}"`).join(', ') || '(none)';
  const message =
    folded.length > 1
      ? `No tab named exactly "${ref.name}"; the tabs ${listed(folded)} differ from it only in letter case: ` +
        'name one of them exactly.'
      : `No tab named "${ref.name}" in this spreadsheet (a tab renamed or deleted since is gone under its old ` +
        `name); its tabs: ${listed(tabs)}.`;
  throw new AppError('sheet_not_found', message, { sheet: ref.name });
}
