/**
 * The tokens of a `where` (parse.ts), in one left-to-right pass: each token knows where it starts, so an error
 * can point at it. Whitespace is space, tab, CR and LF only. A bare word is ASCII (`[A-Za-z_][A-Za-z0-9_]*`);
 * whether it is a keyword or a column is the parser's call. Strings are `'...'` and quoted names `"..."`, each
 * doubling its quote to hold one; numbers have JSON's syntax with an optional leading `-`.
 */
import { whereError } from './where-error.ts';

export type Token =
  | { kind: '(' | ')' | ',' | 'end'; at: number }
  | { kind: 'op'; op: '=' | '!=' | '<>' | '<' | '<=' | '>' | '>='; at: number }
  | { kind: 'number'; value: number; at: number }
  | { kind: 'string'; value: string; at: number }
  | { kind: 'name'; value: string; at: number }
  | { kind: 'word'; value: string; at: number };

const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const OPERATORS = ['<=', '>=', '<>', '!=', '=', '<', '>'] as const;

/** `parameter`: the query parameter the text came in, for a refusal's wording (`where`, or `metrics`). */
export function tokenize(text: string, parameter = 'where'): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n') {
      i++;
      continue;
    }
    const at = i;
    if (ch === '(' || ch === ')' || ch === ',') {
      tokens.push({ kind: ch, at });
      i++;
      continue;
    }
    if (ch === "'" || ch === '"') {
      const { value, end } = quoted(text, i, ch, parameter);
      tokens.push(ch === "'" ? { kind: 'string', value, at } : { kind: 'name', value, at });
      i = end;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (op) {
      tokens.push({ kind: 'op', op, at });
      i += op.length;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(text);
    if (number) {
      const value = Number(number[0]);
      if (!Number.isFinite(value))
        throw whereError(at, `the number ${number[0]} is out of range`, [], parameter);
      tokens.push({ kind: 'number', value, at });
      i += number[0].length;
      continue;
    }
    WORD.lastIndex = i;
    const word = WORD.exec(text);
    if (word) {
      tokens.push({ kind: 'word', value: word[0], at });
      i += word[0].length;
      continue;
    }
    // A name with other characters (an accent, a space) is written quoted, as a bare one is ASCII only.
    const hint = /\p{L}/u.test(ch)
      ? ' (a column name other than A-Z, 0-9 and _ is written in double quotes)'
      : '';
    throw whereError(at, `unexpected character ${JSON.stringify(ch)}${hint}`, [], parameter);
  }
  tokens.push({ kind: 'end', at: text.length });
  return tokens;
}

/** The text between `quote`s from `start`, a doubled quote standing for one; an error at the end if unclosed. */
function quoted(
  text: string,
  start: number,
  quote: "'" | '"',
  parameter: string,
): { value: string; end: number } {
  let value = '';
  let from = start + 1;
  for (;;) {
    const close = text.indexOf(quote, from);
    if (close === -1) {
      const inside = quote === "'" ? 'string' : 'quoted column name';
      throw whereError(text.length, `the text ended inside a ${inside}`, [quote], parameter);
    }
    value += text.slice(from, close);
    if (text[close + 1] !== quote) return { value, end: close + 1 };
    value += quote;
    from = close + 2;
  }
}
