/**
 * REPT, TRIM and SUBSTITUTE as Excel computes them, each in one pass over its text. The libraries' versions could
 * hold the service's thread on a value written through the API: fast-formula-parser's REPT added the text a
 * time at once up to the count (`=REPT("|",B2)` with B2 set to 10^12 never ended), its TRIM used a pattern that
 * backtracks (616 ms for one cell of 32,000 spaces between two letters) and kept the spaces inside the text,
 * which Excel reduces to one; Formula.js's SUBSTITUTE with an instance skipped a match at the start (the first
 * "a" of "aXa" was the second's) and failed on a number. TEXT is the library's formatter (SSF), without the
 * stack trace the library printed for every format it cannot read (a format written into a cell repeated it at
 * every computation).
 */
import { createRequire } from 'node:module';
import { EXCEL_MAX_CELL_CHARS } from '../excel-grid.ts';
import { numberFromText } from './number-text.ts';
import { generalNumber } from './operators.ts';
import { type FormulaErrorValue, formulaLibrary, linearFlatten, valuesOf } from './parser.ts';
import { wildcard } from './wildcard.ts';

const require = createRequire(import.meta.url);

interface Param {
  value: unknown;
  omitted?: boolean;
}

/** Excel's longest number format. */
const MAX_FORMAT_LENGTH = 255;

let formatter: { format(format: string, value: number): string } | undefined;

const errors = () => formulaLibrary().FormulaError;

/** A single value as text, as Excel's text functions read it, or the error it is (a range is #VALUE!). */
function textOf(param: Param | undefined): string | FormulaErrorValue {
  const v = param?.value;
  if (v instanceof errors()) return v as FormulaErrorValue;
  if (Array.isArray(v)) return errors().VALUE;
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  return typeof v === 'number' ? generalNumber(v) : String(v);
}

function countOf(param: Param | undefined): number | FormulaErrorValue {
  const v = param?.value;
  if (v instanceof errors()) return v as FormulaErrorValue;
  const n = typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : v == null ? 0 : Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : errors().VALUE;
}

const isError = (v: unknown): v is FormulaErrorValue => v instanceof errors();
const bounded = (text: string) => (text.length > EXCEL_MAX_CELL_CHARS ? errors().VALUE : text);

/**
 * TEXTJOIN(delimiter, ignore_empty, text1, ...): the texts joined, the delimiters (a range of them is taken in
 * turn) between them, empty ones left out when asked; past Excel's longest text #VALUE!, found as it is built.
 * Formula.js's compared and joined its arrays anew for each value: quadratic, 12 s for a delimiter range of 20,000.
 */
function textJoin(delimiter: Param, ignoreEmpty: Param, ...texts: Param[]): unknown {
  const delimiters: string[] = [];
  for (const v of valuesOf([delimiter])) {
    const d = textOf({ value: v });
    if (isError(d)) return d;
    delimiters.push(d);
  }
  if (delimiters.length === 0) delimiters.push('');
  const flag = Array.isArray(ignoreEmpty.value) ? linearFlatten(ignoreEmpty.value)[0] : ignoreEmpty.value;
  if (isError(flag)) return flag;
  if (typeof flag === 'string') return errors().VALUE;
  const skipEmpty = Boolean(flag);
  let out = '';
  let joined = 0;
  for (const v of valuesOf(texts)) {
    const t = textOf({ value: v });
    if (isError(t)) return t;
    if (skipEmpty && t === '') continue;
    if (joined > 0) out += delimiters[(joined - 1) % delimiters.length];
    out += t;
    joined++;
    if (out.length > EXCEL_MAX_CELL_CHARS) return errors().VALUE;
  }
  return out;
}

export const TEXT_FUNCTIONS = {
  TEXTJOIN: textJoin,

  /**
   * SEARCH(find, within, [start]): where `find` first stands in `within` from `start` on, without regard to case,
   * with wildcards (wildcard.ts). The library's searched text without wildcards as a RegExp of it, with regard to
   * case: `SEARCH("M","good morning")` was #VALUE!, `SEARCH(".","abc")` 1.
   */
  SEARCH: (find: Param, within: Param, start?: Param): unknown => {
    const f = textOf(find);
    const w = textOf(within);
    const from = start === undefined || start.omitted ? 1 : countOf(start);
    if (isError(f)) return f;
    if (isError(w)) return w;
    if (isError(from)) return from;
    if (from < 1 || from > w.length + (f === '' ? 1 : 0)) return errors().VALUE;
    const at = wildcard(f).find(w, from - 1);
    return at < 0 ? errors().VALUE : at + 1;
  },

  /** VALUE(text): the number a text reads as (`"1,000"`, `"50%"`, a date `"3/15/2024"`), as Excel reads it. */
  VALUE: (text: Param): unknown => {
    const v = text.value ?? '';
    if (isError(v) || typeof v === 'number') return v;
    if (typeof v !== 'string') return errors().VALUE;
    if (v.trim() === '') return 0;
    return numberFromText(v.trim()) ?? errors().VALUE;
  },

  /** HYPERLINK(link, [name]): what the cell shows, its name or else the link. */
  HYPERLINK: (link: Param, name?: Param): unknown => (name && !name.omitted ? name.value : link.value),

  /** TEXT(value, format): a number (or text that reads as one) formatted; other text as it is. */
  TEXT: (value: Param, format: Param): unknown => {
    const f = textOf(format);
    const v = value.value ?? 0;
    if (isError(f)) return f;
    if (isError(v)) return v;
    if (f.length > MAX_FORMAT_LENGTH || Array.isArray(v)) return errors().VALUE;
    const n = typeof v === 'number' ? v : typeof v === 'string' ? numberFromText(v) : undefined;
    if (n === undefined) return textOf(value);
    formatter ??= require('fast-formula-parser/ssf/ssf.js') as typeof formatter;
    try {
      return bounded(formatter!.format(f, n));
    } catch {
      return errors().VALUE; // a format SSF cannot read
    }
  },

  /** REPT(text, times): #VALUE! for a negative count or a result past Excel's longest text. */
  REPT: (text: Param, times: Param): unknown => {
    const t = textOf(text);
    const n = countOf(times);
    if (isError(t)) return t;
    if (isError(n)) return n;
    if (n < 0 || t.length * n > EXCEL_MAX_CELL_CHARS) return errors().VALUE;
    return t.repeat(n);
  },

  /** TRIM(text): no space (character 32) before or after, and one between words; other white space kept. */
  TRIM: (text: Param): unknown => {
    const t = textOf(text);
    return isError(t)
      ? t
      : t
          .split(' ')
          .filter((word) => word !== '')
          .join(' ');
  },

  /** SUBSTITUTE(text, old, new, [instance]): every `old`, or its instance-th (counted without overlaps). */
  SUBSTITUTE: (text: Param, old: Param, replacement: Param, instance?: Param): unknown => {
    const t = textOf(text);
    const o = textOf(old);
    const r = textOf(replacement);
    if (isError(t)) return t;
    if (isError(o)) return o;
    if (isError(r)) return r;
    const [within, find, put] = [t, o, r];
    if (find === '') return within;
    if (instance === undefined || instance.omitted) {
      // Sized before it is made: 32,767 replacements of 32,767 characters each would be a billion.
      const parts = within.split(find);
      const length = within.length + (parts.length - 1) * (put.length - find.length);
      return length > EXCEL_MAX_CELL_CHARS ? errors().VALUE : parts.join(put);
    }
    const k = countOf(instance);
    if (isError(k)) return k;
    if (k < 1) return errors().VALUE;
    let at = -find.length;
    for (let seen = 0; seen < k; seen++) {
      at = within.indexOf(find, at + find.length);
      if (at < 0) return within;
    }
    return bounded(within.slice(0, at) + put + within.slice(at + find.length));
  },
};
