/**
 * An aggregate drawn as horizontal bars, one per group, for its first numeric metric; hand-drawn SVG (a bar per
 * group needs no charting library). The numbers are in the bars' labels and in a table for screen readers.
 */
import type { QueryAnswer } from './types.ts';

const BAR = 22;
const LABEL = 180;
const WIDTH = 640;

export function AggregateBars({ answer, groupBy }: { answer: QueryAnswer; groupBy: string }) {
  const keys = groupBy
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  const first = answer.data[0] ?? {};
  const metric = Object.keys(first).find((k) => !keys.includes(k) && typeof first[k] === 'number');
  if (!metric) return <p class="state empty">No group to draw.</p>;
  const values = answer.data.map((row) => Number(row[metric] ?? 0));
  const top = Math.max(...values.map(Math.abs), 1);
  const label = (row: Record<string, unknown>) =>
    keys.length === 0
      ? 'all rows'
      : keys.map((k) => (row[k] === null ? '(empty)' : String(row[k]))).join(' · ');
  const height = answer.data.length * (BAR + 6) + 6;
  return (
    <figure class="bars">
      <figcaption>
        {metric} per {keys.length === 0 ? 'tab' : keys.join(', ')} ({answer.data.length} of{' '}
        {answer.meta.total} groups)
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${height}`} width="100%" role="img" aria-label={`${metric} per group`}>
        {answer.data.map((row, i) => {
          const y = 6 + i * (BAR + 6);
          const w = Math.max(1, (Math.abs(values[i]!) / top) * (WIDTH - LABEL - 90));
          return (
            <g key={i}>
              <text x={LABEL - 8} y={y + BAR * 0.7} text-anchor="end">
                {label(row)}
              </text>
              <rect x={LABEL} y={y} width={w} height={BAR} rx={3} />
              <text x={LABEL + w + 6} y={y + BAR * 0.7}>
                {values[i]!.toLocaleString()}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
