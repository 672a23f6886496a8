/** What a list request asks of a tab, once parsed: the shared vocabulary of the query engine's parts. */
import type { OutputFormat } from './formats/index.ts';
import type { WhereExpression } from './where/expression.ts';

export interface Filter {
  field: string;
  value: string;
  /** true: exact match of the string form as it is (`search_exact`); false: substring, case and accents folded. */
  exact: boolean;
}

export interface SortKey {
  field: string;
  descending: boolean;
}

/** How cells read: typed values, the displayed texts, or typed with formula cells as their formula (`=B2*C2`). */
export type ValuesMode = 'typed' | 'formatted' | 'formula';

/** A `where` as sent and as read (where/parse.ts); the text alone tells two of them apart. */
export interface WhereClause {
  text: string;
  expression: WhereExpression;
}

export interface ListQuery {
  filters: Filter[];
  /** ANDed with `filters`; null when absent or blank. */
  where: WhereClause | null;
  sort: SortKey[];
  /** Projection in the order requested, duplicates removed; null = every column in header order. */
  fields: string[] | null;
  /** The applied limit (already clamped to the maximum). */
  limit: number;
  offset: number;
  values: ValuesMode;
  format: OutputFormat;
  /** Only set for format=jsonp (it is ignored for other formats). */
  callback: string | null;
  meta: boolean;
  /** Shape B's `meta.rows`: the row number of each returned row, in order (`row_numbers=true`). */
  rowNumbers?: boolean;
}
