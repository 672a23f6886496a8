/**
 * Filter matching over a whole column at once. Each searched column is joined once into one flat string
 * ("\0v0\0v1\0…\0") with the start offset of every row, cached per snapshot. A filter is then a handful of
 * `indexOf` scans over contiguous memory plus a binary search per hit, instead of 100k scattered
 * per-row string reads; the result is a bitmap of matching rows.
 */
import { OwnerCache } from '../lib/owner-cache.ts';
import type { CellValue } from '../sources/source.ts';
import { foldText } from './collation.ts';

const SEP = '\u0000';

interface ColumnText {
  /** SEP + forms.join(SEP) + SEP */
  text: string;
  /** starts[r] = offset of row r's first character; starts[n] = text.length (sentinel): row r ends at starts[r+1]-1. */
  starts: Uint32Array;
  /** The per-row forms, for the rare needle that contains SEP itself. */
  forms: string[];
}

/** Returns the value of a cell as the API returns it in `mode` (typed value, or displayed text / null). */
export type CellReader = (row: number, col: number) => CellValue;

const caches = {
  exact: new OwnerCache<object, number, ColumnText>(),
  folded: new OwnerCache<object, number, ColumnText>(),
};

/** The string a search matches against: numbers via String(n), booleans true/false, empty as ''. */
export function stringForm(v: CellValue): string {
  if (v === null) return '';
  return typeof v === 'string' ? v : String(v);
}

function build(n: number, col: number, read: CellReader, folded: boolean): ColumnText {
  const forms = new Array<string>(n);
  const starts = new Uint32Array(n + 1);
  let pos = 1;
  for (let r = 0; r < n; r++) {
    const s = stringForm(read(r, col));
    const f = folded ? foldText(s) : s;
    forms[r] = f;
    starts[r] = pos;
    pos += f.length + 1;
  }
  starts[n] = pos;
  return { text: SEP + forms.join(SEP) + SEP, starts, forms };
}

function columnText(owner: object, n: number, col: number, read: CellReader, folded: boolean): ColumnText {
  return (folded ? caches.folded : caches.exact).get(owner, col, () => build(n, col, read, folded));
}

/** Row whose span contains `pos`: the last r with starts[r] <= pos. */
function rowAt(starts: Uint32Array, pos: number): number {
  let lo = 0;
  let hi = starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface MatchSpec {
  /** Identity of the snapshot array the reader reads (typed or formatted): the cache key. */
  owner: object;
  rowCount: number;
  col: number;
  read: CellReader;
  /** Exact (the whole value, as it is) or a substring ignoring case and accents (collation.ts). */
  exact: boolean;
  value: string;
}

/** Marks matching rows with 1 in a fresh bitmap of rowCount bytes. */
export function matchRows(spec: MatchSpec): Uint8Array {
  const { rowCount: n, exact } = spec;
  const hits = new Uint8Array(n);
  if (n === 0) return hits;
  const { text, starts, forms } = columnText(spec.owner, n, spec.col, spec.read, !exact);
  const needle = exact ? spec.value : foldText(spec.value);

  if (needle.includes(SEP)) {
    // Could straddle two rows in the joined text: check row by row instead.
    for (let r = 0; r < n; r++) if (exact ? forms[r] === needle : forms[r]!.includes(needle)) hits[r] = 1;
    return hits;
  }

  if (!exact) {
    for (let from = 0; ; ) {
      const pos = text.indexOf(needle, from);
      if (pos < 0) break;
      const r = rowAt(starts, pos);
      hits[r] = 1;
      from = starts[r + 1]!; // one hit per row is enough
    }
    return hits;
  }

  // Exact: look for SEP value SEP and keep hits that span exactly one whole row (a value may itself contain
  // SEP, so a hit can also start mid-row; those are skipped).
  const framed = SEP + needle + SEP;
  for (let from = 0; ; ) {
    const pos = text.indexOf(framed, from);
    if (pos < 0) break;
    const r = rowAt(starts, pos + 1);
    if (starts[r] === pos + 1 && starts[r + 1]! - 1 === pos + 1 + needle.length) hits[r] = 1;
    from = pos + 1; // the closing SEP may open the next row's match
  }
  return hits;
}
