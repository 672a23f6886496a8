/** A1 cell references <-> 1-based row and column numbers. */

export function columnNumber(letters: string): number {
  let n = 0;
  for (let i = 0; i < letters.length; i++) n = n * 26 + ((letters.charCodeAt(i) | 0x20) - 96);
  return n;
}

/** `B12` -> { column: 2, row: 12 }; undefined for anything else. */
export function parseCellRef(ref: string): { column: number; row: number } | undefined {
  const m = /^\$?([A-Za-z]{1,3})\$?(\d+)$/.exec(ref);
  if (!m) return undefined;
  return { column: columnNumber(m[1] as string), row: Number(m[2]) };
}
