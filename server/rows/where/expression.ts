/**
 * A parsed `where` (docs/api.md "Querying"; the grammar is parse.ts's): a tree of `and`, `or` and `not` over
 * predicates on one column each. Column names are as written (quotes taken off), checked against the tab later.
 */

/** A literal as the text wrote it: a number, a string (`'...'`) or `true` / `false`. */
export type Literal = number | string | boolean;

/** `!=` and `<>` are `not` over `=`: the contract makes each negation exact, so one form is enough. */
export type CompareOp = '=' | '<' | '<=' | '>' | '>=';

export type TextMatch = 'contains' | 'starts with' | 'ends with';

/** Where a column is named in the text, for an `unknown_field` that points at it. */
export interface ColumnRef {
  name: string;
  position: number;
}

export type Predicate =
  | { kind: 'compare'; column: ColumnRef; op: CompareOp; value: Literal }
  | { kind: 'in'; column: ColumnRef; values: Literal[] }
  | { kind: 'between'; column: ColumnRef; low: Literal; high: Literal }
  | { kind: 'null'; column: ColumnRef }
  | { kind: 'text'; column: ColumnRef; match: TextMatch; value: string };

/** `not in`, `not between` and `is not null` are `not` over their predicate, as `!=` is. */
export type WhereExpression =
  | Predicate
  | { kind: 'not'; item: WhereExpression }
  | { kind: 'and' | 'or'; items: WhereExpression[] };

/** The bounds of a `where`: longer, larger or deeper is a 400. */
export const WHERE_LIMITS = { maxLength: 4096, maxPredicates: 100, maxDepth: 32 } as const;
