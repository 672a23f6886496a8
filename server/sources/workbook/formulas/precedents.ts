/**
 * What a formula reads, as row spans per tab, so a write recomputes only the formulas it can have changed.
 * A tokenizer over the formula's text (string literals skipped): cells, ranges, whole columns and rows, with or
 * without a tab name. A formula whose inputs the text does not show (a defined name, a table, INDIRECT, OFFSET,
 * a volatile function such as TODAY) is recomputed after every write.
 */
import { columnNumber } from '../ooxml/cell-ref.ts';

export interface RowSpan {
  /** Lower-cased tab name. */
  sheet: string;
  top: number;
  bottom: number;
}

/** Row spans read, or 'always' when the text cannot tell. */
export type Precedents = RowSpan[] | 'always';

const SHEET = String.raw`(?:'((?:[^']|'')+)'|([A-Za-z_\u00C0-\uFFFF][A-Za-z0-9_.\u00C0-\uFFFF]*))!`;
const CELL = String.raw`\$?([A-Za-z]{1,3})\$?(\d+)`;
const REF = new RegExp(
  String.raw`(?<![A-Za-z0-9_.$!'\]\u00C0-\uFFFF])(?:${SHEET})?(?:${CELL}(?::${CELL})?|\$?(\d+):\$?(\d+)|\$?([A-Za-z]{1,3}):\$?([A-Za-z]{1,3}))(?![A-Za-z0-9_(\[!.])`,
  'g',
);
/** Functions whose inputs are computed, or whose result changes without any input changing. */
const DYNAMIC = /\b(?:INDIRECT|OFFSET|NOW|TODAY|RAND|RANDBETWEEN|CELL|INFO)\s*\(/i;
const MAX_ROW = 1_048_576;

/** `names`: defined names and table names, lower-cased (a formula that uses one is always recomputed). */
export function precedentsOf(formula: string, sheet: string, names: ReadonlySet<string>): Precedents {
  const code = withoutStrings(formula);
  if (code.includes('[') || DYNAMIC.test(code)) return 'always';
  for (const word of code.match(/[A-Za-z_\\\u00C0-\uFFFF][A-Za-z0-9_.\\\u00C0-\uFFFF]*/g) ?? []) {
    if (names.has(word.toLowerCase())) return 'always';
  }
  const spans: RowSpan[] = [];
  for (const m of code.matchAll(REF)) {
    const tab = (m[1]?.replace(/''/g, "'") ?? m[2] ?? sheet).toLowerCase();
    if (m[4] !== undefined) {
      const first = Number(m[4]);
      const last = m[6] === undefined ? first : Number(m[6]);
      // A column reference that is not one (`LOG10` is a function, caught by the lookahead) needs no care here.
      if (columnNumber(m[3]!) > 16_384) continue;
      spans.push({ sheet: tab, top: Math.min(first, last), bottom: Math.max(first, last) });
    } else if (m[7] !== undefined) {
      const a = Number(m[7]);
      const b = Number(m[8]);
      spans.push({ sheet: tab, top: Math.min(a, b), bottom: Math.max(a, b) });
    } else if (m[9] !== undefined) {
      spans.push({ sheet: tab, top: 1, bottom: MAX_ROW });
    }
  }
  return spans;
}

/** The formula with every "string literal" blanked (same length), so nothing inside one reads as a reference. */
function withoutStrings(formula: string): string {
  return formula.replace(/"(?:[^"]|"")*"/g, (s) => `"${' '.repeat(s.length - 2)}"`);
}
