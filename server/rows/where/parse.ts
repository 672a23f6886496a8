/**
 * Reads a `where` into an expression (expression.ts), by hand, by recursive descent over the tokens (tokens.ts):
 *
 *   expr      := term ("or" term)*
 *   term      := factor ("and" factor)*
 *   factor    := "not" factor | "(" expr ")" | predicate
 *   predicate := column op literal
 *              | column ["not"] "in" "(" literal ("," literal)* ")"
 *              | column ["not"] "between" literal "and" literal
 *              | column "is" ["not"] "null"
 *              | column ("contains" | "starts" "with" | "ends" "with") string
 *
 * Keywords are case-insensitive; a column named like one is quoted. Linear and bounded: one pass over at most
 * 4,096 characters, recursion only through parentheses (at most 32 deep), a run of `not`s read in a loop, at most
 * 100 predicates. Every refusal is a 400 with the position of the token it stopped at (where-error.ts).
 *
 * By hand rather than with a parser generator: the grammar is LL(1) and a page long, and what it must answer is
 * specific (the contract's position and expected list, its limits, keywords that are also valid column names
 * when quoted), which a generated parser would need wrapping for anyway; this adds no build step or runtime.
 */
import { grouped } from '../../lib/quantity.ts';
import {
  type ColumnRef,
  type CompareOp,
  type Literal,
  type Predicate,
  type TextMatch,
  WHERE_LIMITS,
  type WhereExpression,
} from './expression.ts';
import { type Token, tokenize } from './tokens.ts';
import { whereError } from './where-error.ts';

const KEYWORDS = new Set([
  'and',
  'or',
  'not',
  'in',
  'between',
  'is',
  'null',
  'true',
  'false',
  'contains',
  'starts',
  'ends',
  'with',
]);

const LITERAL = ['a number', "a 'string'", 'true', 'false'];
const AFTER_COLUMN = [
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'in',
  'not in',
  'between',
  'is',
  'contains',
  'starts with',
  'ends with',
];

export function parseWhere(text: string): WhereExpression {
  if (text.length > WHERE_LIMITS.maxLength) {
    throw whereError(
      WHERE_LIMITS.maxLength,
      `the expression is longer than ${grouped(WHERE_LIMITS.maxLength)} characters`,
    );
  }
  return new Parser(tokenize(text)).whole();
}

class Parser {
  readonly #tokens: Token[];
  #next = 0;
  #predicates = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  whole(): WhereExpression {
    const expression = this.#expression(0);
    const token = this.#peek();
    if (token.kind !== 'end') throw this.#unexpected(token, ['and', 'or', 'the end']);
    return expression;
  }

  #expression(depth: number): WhereExpression {
    const items = [this.#term(depth)];
    while (this.#keyword('or')) items.push(this.#term(depth));
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  }

  #term(depth: number): WhereExpression {
    const items = [this.#factor(depth)];
    while (this.#keyword('and')) items.push(this.#factor(depth));
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  }

  #factor(depth: number): WhereExpression {
    let negated = false;
    while (this.#keyword('not')) negated = !negated;
    const token = this.#peek();
    let item: WhereExpression;
    if (token.kind === '(') {
      if (depth >= WHERE_LIMITS.maxDepth) {
        throw whereError(token.at, `more than ${WHERE_LIMITS.maxDepth} levels of parentheses`);
      }
      this.#take();
      item = this.#expression(depth + 1);
      this.#expect(')', [')', 'and', 'or']);
    } else {
      item = this.#predicate();
    }
    return negated ? { kind: 'not', item } : item;
  }

  #predicate(): WhereExpression {
    const column = this.#column();
    if (++this.#predicates > WHERE_LIMITS.maxPredicates) {
      throw whereError(column.position, `more than ${WHERE_LIMITS.maxPredicates} predicates`);
    }
    const token = this.#take();
    if (token.kind === 'op') {
      const value = this.#literal();
      if (token.op === '!=' || token.op === '<>') return not({ kind: 'compare', column, op: '=', value });
      return { kind: 'compare', column, op: token.op as CompareOp, value };
    }
    const word = token.kind === 'word' ? token.value.toLowerCase() : '';
    if (word === 'not') {
      const after = this.#take();
      const next = after.kind === 'word' ? after.value.toLowerCase() : '';
      if (next === 'in') return not(this.#in(column));
      if (next === 'between') return not(this.#between(column));
      throw this.#unexpected(after, ['in', 'between']);
    }
    if (word === 'in') return this.#in(column);
    if (word === 'between') return this.#between(column);
    if (word === 'is') {
      const negated = this.#keyword('not');
      this.#expectKeyword('null', negated ? ['null'] : ['null', 'not null']);
      const isNull: Predicate = { kind: 'null', column };
      return negated ? not(isNull) : isNull;
    }
    if (word === 'contains') return this.#text(column, 'contains');
    if (word === 'starts' || word === 'ends') {
      this.#expectKeyword('with', ['with']);
      return this.#text(column, word === 'starts' ? 'starts with' : 'ends with');
    }
    throw this.#unexpected(token, AFTER_COLUMN);
  }

  #in(column: ColumnRef): Predicate {
    this.#expect('(', ['(']);
    const values = [this.#literal()];
    while (this.#peek().kind === ',') {
      this.#take();
      values.push(this.#literal());
    }
    this.#expect(')', [',', ')']);
    return { kind: 'in', column, values };
  }

  #between(column: ColumnRef): Predicate {
    const low = this.#literal();
    this.#expectKeyword('and', ['and']);
    return { kind: 'between', column, low, high: this.#literal() };
  }

  #text(column: ColumnRef, match: TextMatch): Predicate {
    const token = this.#take();
    if (token.kind !== 'string') throw this.#unexpected(token, ["a 'string'"]);
    return { kind: 'text', column, match, value: token.value };
  }

  #column(): ColumnRef {
    const token = this.#take();
    if (token.kind === 'name') return { name: token.value, position: token.at };
    if (token.kind === 'word' && !KEYWORDS.has(token.value.toLowerCase())) {
      return { name: token.value, position: token.at };
    }
    if (token.kind === 'word') {
      throw whereError(
        token.at,
        `${token.value} is a keyword; a column of that name is written in double quotes ("${token.value}")`,
        ['a column name', 'not', '('],
      );
    }
    throw this.#unexpected(token, ['a column name', 'not', '(']);
  }

  #literal(): Literal {
    const token = this.#take();
    if (token.kind === 'number' || token.kind === 'string') return token.value;
    if (token.kind === 'word') {
      const word = token.value.toLowerCase();
      if (word === 'true') return true;
      if (word === 'false') return false;
    }
    throw this.#unexpected(token, LITERAL);
  }

  #peek(): Token {
    return this.#tokens[this.#next]!;
  }

  #take(): Token {
    const token = this.#tokens[this.#next]!;
    if (token.kind !== 'end') this.#next++;
    return token;
  }

  /** Takes the next token when it is the keyword `word`. */
  #keyword(word: string): boolean {
    const token = this.#peek();
    if (token.kind !== 'word' || token.value.toLowerCase() !== word) return false;
    this.#next++;
    return true;
  }

  #expectKeyword(word: string, expected: readonly string[]): void {
    if (!this.#keyword(word)) throw this.#unexpected(this.#peek(), expected);
  }

  #expect(kind: '(' | ')', expected: readonly string[]): void {
    const token = this.#take();
    if (token.kind !== kind) throw this.#unexpected(token, expected);
  }

  #unexpected(token: Token, expected: readonly string[]) {
    return whereError(
      token.at,
      token.kind === 'end' ? 'the expression ended too soon' : `unexpected ${describe(token)}`,
      expected,
    );
  }
}

function not(item: WhereExpression): WhereExpression {
  return { kind: 'not', item };
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'op':
      return `"${token.op}"`;
    case 'number':
      return `number ${token.value}`;
    case 'string':
      return 'string';
    case 'name':
      return `column "${token.value}"`;
    case 'word':
      return `"${token.value}"`;
    default:
      return `"${token.kind}"`;
  }
}
