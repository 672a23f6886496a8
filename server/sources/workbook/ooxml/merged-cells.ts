/**
 * Merged cells, read one way for every reader: the refs of a sheet's `<mergeCell>` elements (in the part's
 * tail, after `<sheetData>`) and the cells they hide (every cell of a merge but its top-left one), which read
 * as empty.
 */
import { parseArea } from './cell-area.ts';
import { decodeXml } from './xml-text.ts';

const MERGE_REF = /<(?:[A-Za-z_][\w.-]*:)?mergeCell\b[^>]*?\bref\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** The refs (`A1:C2`) of the merges a sheet's tail lists, in order. */
export function mergeRefsIn(tail: string): string[] {
  return [...tail.matchAll(MERGE_REF)].map((m) => decodeXml(m[1] ?? m[2] ?? ''));
}

/** Column ranges per row that merges cover (every cell of a merge but its top-left one). */
export function mergeCover(merges: readonly string[]): (row: number, column: number) => boolean {
  const byRow = new Map<number, [number, number][]>();
  for (const ref of merges) {
    const area = parseArea(ref);
    if (!area) continue;
    for (let r = area.top; r <= area.bottom; r++) {
      const left = r === area.top ? area.left + 1 : area.left;
      if (left > area.right) continue;
      const list = byRow.get(r) ?? [];
      list.push([left, area.right]);
      byRow.set(r, list);
    }
  }
  if (byRow.size === 0) return () => false;
  return (row, column) => byRow.get(row)?.some(([l, r]) => column >= l && column <= r) ?? false;
}
