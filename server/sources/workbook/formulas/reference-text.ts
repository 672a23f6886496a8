/**
 * A reference written as text (`Sheet1!$B$2`, `'My Tab'!$A$1:$C$9`, `B:B`) as the parser's reference: what a
 * defined name stands for, and what INDIRECT reads.
 */
import { parseArea } from '../ooxml/cell-area.ts';
import { parseCellRef } from '../ooxml/cell-ref.ts';
import type { CellPosition, RangeRef } from './parser.ts';

export type Ref = CellPosition | RangeRef;

/** `Sheet1!$B$2` or `'My Tab'!$A$1:$C$9` -> the parser's reference; anything else (a constant) undefined. */
export function refFromText(formula: string, defaultSheet: string): Ref | undefined {
  const m = /^(?:(?:'((?:[^']|'')+)'|([^'!]+))!)?(.+)$/.exec(formula.trim().replace(/^=/, ''));
  if (!m) return undefined;
  const sheet = (m[1]?.replace(/''/g, "'") ?? m[2] ?? defaultSheet).trim();
  const target = m[3]!.replace(/\$/g, '');
  const area = parseArea(target);
  if (area) {
    return {
      sheet,
      from: { row: area.top, col: area.left },
      to: { row: area.bottom, col: area.right },
    };
  }
  const cell = parseCellRef(target);
  return cell ? { sheet, row: cell.row, col: cell.column } : undefined;
}
