/** A1 cell references <-> 1-based row and column numbers. */

export function columnNumber(letters: string): number {
  let n = 0;
  for (let i = 0; i < letters.length; i++) n = n * 26 + ((letters.charCodeAt(i) | 0x20) - 96);
  return n;
}

/** `B12` -> { column: 2, row: 12 }; undefined for anything else. */
export function parseCellRef(ref: string): { column: number; row: number } | undefined {
  // A hand-rolled scan: this runs for every cell of every sheet read.
  let i = ref.charCodeAt(0) === 36 ? 1 : 0; // $
  let column = 0;
  let letters = 0;
  for (; i < ref.length; i++) {
    const code = ref.charCodeAt(i) | 0x20;
    if (code < 97 || code > 122) break;
    column = column * 26 + (code - 96);
    letters++;
  }
  if (letters === 0 || letters > 3) return undefined;
  if (ref.charCodeAt(i) === 36) i++;
  let row = 0;
  const digitsStart = i;
  for (; i < ref.length; i++) {
    const code = ref.charCodeAt(i);
    if (code < 48 || code > 57) return undefined;
    row = row * 10 + (code - 48);
  }
  if (i === digitsStart) return undefined;
  return { column, row };
}
