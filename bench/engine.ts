/**
 * Query engine micro-benchmark: 100k rows x 8 columns, search on one column + sort on another, limit 100.
 * Run: node bench/engine.ts. Prints first-call and median timings of runQuery + JSON rendering.
 */
import { runQuery } from '../server/rows/engine.ts';
import { renderList } from '../server/rows/formats/index.ts';
import { parseListQuery } from '../server/rows/query-params.ts';
import type { CellValue } from '../server/sources/source.ts';

const N = 100_000;
const header = ['id', 'name', 'city', 'amount', 'active', 'date', 'code', 'notes'];
const cities = ['Berlin', 'Paris', 'Oslo', 'Madrid', 'Rome', 'Vienna', 'Lisbon', 'Prague'];
const typed: CellValue[][] = [];
const formatted: string[][] = [];
let seed = 42;
const rnd = (): number => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
for (let i = 0; i < N; i++) {
  const amount = Math.round(rnd() * 1e6) / 100;
  const row: CellValue[] = [
    i + 1,
    `Customer ${Math.floor(rnd() * 50_000)}`,
    cities[i % cities.length]!,
    amount,
    rnd() < 0.5,
    `2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
    `item${Math.floor(rnd() * 100_000)}`,
    rnd() < 0.2 ? null : `note ${i}`,
  ];
  typed.push(row);
  formatted.push(row.map((v) => (v === null ? '' : typeof v === 'number' ? v.toFixed(2) : String(v))));
}
const tab = { header, typed, formatted };

interface Timing {
  first: number;
  median: number;
  total: number;
}

function time(query: Record<string, unknown>, runs: number): Timing {
  const q = parseListQuery(query, { defaultLimit: 100, maxLimit: 1000 });
  let t = performance.now();
  let r = runQuery(tab, q);
  renderList(r, q);
  const first = performance.now() - t;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    t = performance.now();
    r = runQuery(tab, q);
    renderList(r, q);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { first, median: times[Math.floor(runs / 2)]!, total: r.total };
}

function show(label: string, x: Timing): void {
  const line = `${label.padEnd(46)} first ${x.first.toFixed(1)} ms, median ${x.median.toFixed(2)} ms`;
  console.log(`${line} (total ${x.total})`);
}

show('search=name:12 sort=-amount', time({ search: 'name:12', sort: '-amount' }, 51));
show('search=city:o sort=code (collated text)', time({ search: 'city:o', sort: 'code' }, 51));
show('search_exact=city:Oslo sort=date,-id', time({ search_exact: 'city:Oslo', sort: 'date,-id' }, 51));
show('sort=name offset=50000 (no filter)', time({ sort: 'name', offset: '50000' }, 51));
show(
  'search=notes:9 values=formatted sort=amount',
  time({ search: 'notes:9', sort: 'amount', values: 'formatted' }, 51),
);
show('no params', time({}, 51));
// Different search values each call, same sort: the realistic benchmark pattern (sort order cached).
{
  const q0 = parseListQuery({ search: 'name:1', sort: 'code' }, { defaultLimit: 100, maxLimit: 1000 });
  runQuery(tab, q0);
  const times: number[] = [];
  for (let i = 0; i < 51; i++) {
    const q = parseListQuery(
      { search: `name:${i + 10}`, sort: 'code' },
      { defaultLimit: 100, maxLimit: 1000 },
    );
    const t = performance.now();
    renderList(runQuery(tab, q), q);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`${'varying search=name:<n> sort=code'.padEnd(46)} median ${times[25]!.toFixed(2)} ms`);
}
