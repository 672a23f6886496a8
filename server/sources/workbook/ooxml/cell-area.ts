/** A1 areas (`A1:C4`) <-> 1-based rectangles, for tables, filters and merged cells. */
import { columnLetter } from '../../header.ts';
import { columnNumber } from './cell-ref.ts';

/** A rectangle of cells, 1-based and inclusive. */
export interface Area {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const AREA = /^\$?([A-Za-z]{1,3})\$?(\d+):\$?([A-Za-z]{1,3})\$?(\d+)$/;

/** `A1:C4` -> its area; null for anything else (a table ref always has two corners). */
export function parseArea(ref: string | undefined): Area | null {
  const m = ref === undefined ? null : AREA.exec(ref.trim());
  if (!m) return null;
  const [, c1, r1, c2, r2] = m as unknown as [string, string, string, string, string];
  const [left, right] = [columnNumber(c1), columnNumber(c2)].sort((a, b) => a - b) as [number, number];
  const [top, bottom] = [Number(r1), Number(r2)].sort((a, b) => a - b) as [number, number];
  return { left, top, right, bottom };
}

export function formatArea(area: Area): string {
  return `${columnLetter(area.left)}${area.top}:${columnLetter(area.right)}${area.bottom}`;
}
