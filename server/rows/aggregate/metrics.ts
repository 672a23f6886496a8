/**
 * `metrics` of an aggregate: `count`, `count(col)`, `count_distinct(col)`, `sum(col)`, `avg(col)`, `min(col)`,
 * `max(col)`, joined by `,`; `col` written as in `where` (bare, or in double quotes). Each metric is answered
 * under its own text as written (trimmed): `sum(Total)`. Read with `where`'s tokens (where/tokens.ts).
 */
import { AppError } from '../../errors.ts';
import type { ColumnRef } from '../where/expression.ts';
import { type Token, tokenize } from '../where/tokens.ts';

export type MetricKind = 'count' | 'count_distinct' | 'sum' | 'avg' | 'min' | 'max';

export interface Metric {
  /** The output column's name: the metric as written. */
  name: string;
  kind: MetricKind;
  /** Absent for `count` of rows. */
  column?: ColumnRef;
}

const KINDS = new Set<MetricKind>(['count', 'count_distinct', 'sum', 'avg', 'min', 'max']);
export const MAX_METRICS = 20;

function refused(message: string, position: number): AppError {
  return new AppError('invalid_parameter', `Parameter "metrics" at position ${position}: ${message}.`, {
    parameter: 'metrics',
    position,
  });
}

export function parseMetrics(text: string | undefined): Metric[] {
  if (text === undefined || text.trim() === '') return [{ name: 'count', kind: 'count' }];
  const tokens = tokenize(text.length > 1000 ? refusedLength() : text, 'metrics');
  const metrics: Metric[] = [];
  let i = 0;
  const at = () => tokens[i]!;
  for (;;) {
    const start = at();
    if (start.kind !== 'word' || !KINDS.has(start.value.toLowerCase() as MetricKind)) {
      throw refused(`expected one of ${[...KINDS].join(', ')}`, start.at);
    }
    const kind = start.value.toLowerCase() as MetricKind;
    i++;
    let column: ColumnRef | undefined;
    if (at().kind === '(') {
      i++;
      column = columnOf(at());
      i++;
      if (at().kind !== ')') throw refused('expected )', at().at);
      i++;
    } else if (kind !== 'count') {
      throw refused(`${kind} needs a column: ${kind}(Column)`, at().at);
    }
    const end = at().at;
    metrics.push({ name: text.slice(start.at, end).trim(), kind, ...(column ? { column } : {}) });
    if (metrics.length > MAX_METRICS) throw refused(`more than ${MAX_METRICS} metrics`, start.at);
    if (at().kind === 'end') break;
    if (at().kind !== ',') throw refused('expected , or the end', at().at);
    i++;
  }
  const names = new Set<string>();
  for (const m of metrics) {
    if (names.has(m.name)) throw refused(`${m.name} is asked twice`, text.indexOf(m.name));
    names.add(m.name);
  }
  return metrics;
}

function columnOf(token: Token): ColumnRef {
  if (token.kind === 'name' || token.kind === 'word') return { name: token.value, position: token.at };
  throw refused('expected a column name', token.at);
}

function refusedLength(): never {
  throw refused('longer than 1,000 characters', 1000);
}
