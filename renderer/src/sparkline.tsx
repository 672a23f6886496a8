/** Requests per day over the last `days` UTC days as a small inline SVG (no chart library). */
export function Sparkline({ points, label }: { points: number[]; label: string }) {
  const width = 120;
  const height = 28;
  const max = Math.max(1, ...points);
  const step = points.length > 1 ? width / (points.length - 1) : width;
  const coords = points.map(
    (p, i) => `${(i * step).toFixed(1)},${(height - 2 - (p / max) * (height - 4)).toFixed(1)}`,
  );
  return (
    <svg
      class="sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
    >
      <title>{label}</title>
      <polyline points={coords.join(' ')} fill="none" stroke="currentColor" stroke-width="1.5" />
    </svg>
  );
}

/** The last `days` UTC days, oldest first, with 0 where the report has no entry. */
export function dailySeries(
  days: { day: string; requests: number }[],
  count = 30,
  now = Date.now(),
): number[] {
  const byDay = new Map(days.map((d) => [d.day, d.requests]));
  const out: number[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const day = new Date(now - i * 86_400_000).toISOString().slice(0, 10);
    out.push(byDay.get(day) ?? 0);
  }
  return out;
}
