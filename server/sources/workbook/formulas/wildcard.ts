/**
 * Excel's wildcards (`*` any run of characters, `?` any one, `~` before either or before itself taking it as it
 * is), matched without a regular expression. The libraries turned a pattern into a RegExp of `.*` runs, which
 * backtracks: `COUNTIF(A1:A20,"*a*a*a*a*c")` over cells of 100 `a`s took 37 s on the service's thread, and a
 * cell written through the API can be such a pattern. Here a match costs at most the text's length times the
 * pattern's, and every comparison ignores case, as Excel's does.
 */

/** A pattern's pieces: a character to match as it is, `?` (any one) or `*` (any run). */
type Piece = string | typeof ANY_ONE | typeof ANY_RUN;
const ANY_ONE = 1;
const ANY_RUN = 2;

export interface Wildcard {
  /** Whether the whole of `text` matches. */
  matches(text: string): boolean;
  /** Where the first part of `text` from `from` on that matches begins, or -1 (SEARCH's reading). */
  find(text: string, from?: number): number;
}

/** Whether `text` has a wildcard that is not escaped by `~`. */
export function hasWildcard(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '*' || c === '?') return true;
    if (c === '~' && (text[i + 1] === '*' || text[i + 1] === '?' || text[i + 1] === '~')) i++;
  }
  return false;
}

/** Text without a wildcard as the characters it stands for: `~*`, `~?` and `~~` read as `*`, `?` and `~`. */
export const withoutEscapes = (text: string): string => text.replace(/~([*?~])/g, '$1');

/**
 * Whether a cell is text matching `text` as Excel's lookups and criteria match it: without regard to case, with
 * wildcards when it has any, its `~` escapes read.
 */
export function textMatcher(text: string): (cell: unknown) => boolean {
  if (hasWildcard(text)) {
    const pattern = wildcard(text);
    return (cell) => typeof cell === 'string' && pattern.matches(cell);
  }
  const lower = withoutEscapes(text).toLowerCase();
  return (cell) => typeof cell === 'string' && cell.toLowerCase() === lower;
}

function piecesOf(pattern: string): Piece[] {
  const pieces: Piece[] = [];
  const lower = pattern.toLowerCase();
  for (let i = 0; i < lower.length; i++) {
    const c = lower[i]!;
    const next = lower[i + 1];
    if (c === '~' && (next === '*' || next === '?' || next === '~')) {
      pieces.push(next);
      i++;
    } else if (c === '*') {
      if (pieces[pieces.length - 1] !== ANY_RUN) pieces.push(ANY_RUN); // `**` is `*`
    } else pieces.push(c === '?' ? ANY_ONE : c);
  }
  return pieces;
}

/**
 * Whether `text` from `at` on matches `pieces` (`whole`: to its end; otherwise any prefix will do). One pass that
 * goes back only to just after the last `*`, never further: a later `*` can take whatever an earlier one could.
 */
function matchFrom(pieces: readonly Piece[], text: string, at: number, whole: boolean): boolean {
  let p = 0;
  let t = at;
  let star = -1;
  let starAt = 0;
  while (t < text.length) {
    if (p === pieces.length && !whole) return true;
    const piece = pieces[p];
    if (piece === ANY_RUN) {
      star = p++;
      starAt = t;
    } else if (piece !== undefined && (piece === ANY_ONE || piece === text[t])) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++starAt;
    } else return false;
  }
  while (pieces[p] === ANY_RUN) p++;
  return p === pieces.length;
}

export function wildcard(pattern: string): Wildcard {
  const pieces = piecesOf(pattern);
  const firstRun = pieces.indexOf(ANY_RUN);
  /** The characters and `?`s before the first `*`: where a match can start. */
  const lead = firstRun < 0 ? pieces : pieces.slice(0, firstRun);
  return {
    matches: (text) => matchFrom(pieces, text.toLowerCase(), 0, true),
    find: (text, from = 0) => {
      const lower = text.toLowerCase();
      // A later start leaves less room, so only the first place the lead fits can start a match: when the rest
      // does not fit after it, it fits after no later one.
      const at = firstFit(lead, lower, from);
      return at >= 0 && matchFrom(pieces, lower, at, false) ? at : -1;
    },
  };
}

/** The first place from `from` on where `lead` (characters and `?`s) fits. */
function firstFit(lead: readonly Piece[], lower: string, from: number): number {
  for (let at = from; at + lead.length <= lower.length; at++) {
    let i = 0;
    while (i < lead.length && (lead[i] === ANY_ONE || lead[i] === lower[at + i])) i++;
    if (i === lead.length) return at;
  }
  return -1;
}

/**
 * A pattern as the stand-in for the RegExp fast-formula-parser makes of it (parser.ts): VLOOKUP and HLOOKUP
 * `test` each cell (a whole match, text only), SEARCH hands it to `String.prototype.search`.
 */
export function regExpLike(pattern: string): {
  test(cell: unknown): boolean;
  [Symbol.search](text: string): number;
} {
  const compiled = wildcard(pattern);
  return {
    test: (cell) => typeof cell === 'string' && compiled.matches(cell),
    [Symbol.search]: (text) => compiled.find(text),
  };
}
