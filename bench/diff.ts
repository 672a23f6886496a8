/**
 * Row diff benchmark (not part of npm test). Run: node bench/diff.ts
 * Two 100,000-row tabs of 8-14 mixed columns; each case prints the median of several runs (hashing included),
 * the number of changes by kind, and checks once that applyDiff(old, diff) gives the new rows.
 */

import { type DiffOptions, diffRows, type RowChange, rowsEqual } from '../server/diff/row-diff.ts';
import { seededRandom } from '../server/lib/seeded-random.ts';
import type { CellValue } from '../server/sources/source.ts';
import { applyDiff } from '../test/helpers/apply-diff.ts';

const N = 100_000;
const RUNS = 7;

const CITIES = ['Berlin', 'Paris', 'Oslo', 'Madrid', 'Rome', 'Vienna', 'Lisbon', 'Prague'];
const WIDTH = 8 + (N % 7); // 8..14 columns, fixed per tab like a real header

/** Row content for a content id; built fresh each call, so old and new tabs share no string objects. */
function rowFor(id: number): CellValue[] {
  const r = seededRandom(id * 7919 + 1);
  const row: CellValue[] = [
    id + 1,
    `Customer ${Math.floor(r() * 50_000)} ${id}`,
    CITIES[id % CITIES.length]!,
    Math.round(r() * 1e6) / 100,
    r() < 0.5,
    `2024-${String((id % 12) + 1).padStart(2, '0')}-${String((id % 28) + 1).padStart(2, '0')}`,
    `name${Math.floor(r() * 100_000)}@example.com`,
    r() < 0.2 ? null : `note ${id}`,
  ];
  while (row.length < WIDTH) row.push(r() < 0.3 ? null : Math.floor(r() * 1000));
  return row;
}

function tab(ids: readonly number[]): CellValue[][] {
  return ids.map(rowFor);
}

const base = Array.from({ length: N }, (_, i) => i);
let nextId = 10_000_000;

/** 1% of rows changed: scattered cell edits, inserts and deletes in equal parts. */
function onePercent(seed: number): { ids: number[]; edited: Set<number> } {
  const r = seededRandom(seed);
  const ids = [...base];
  const edited = new Set<number>();
  for (let c = 0; c < N / 100; c++) {
    const at = Math.floor(r() * ids.length);
    const op = c % 3;
    if (op === 0) edited.add(ids[at]!);
    else if (op === 1) ids.splice(at, 0, nextId++);
    else ids.splice(at, 1);
  }
  return { ids, edited };
}

function withEdits(ids: number[], edited: Set<number>): CellValue[][] {
  return ids.map((id) => {
    const row = rowFor(id);
    if (edited.has(id)) row[3] = -1; // one cell changed
    return row;
  });
}

function shuffled(seed: number): number[] {
  const r = seededRandom(seed);
  const ids = [...base];
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return ids;
}

interface Case {
  name: string;
  old: CellValue[][];
  new: CellValue[][];
  options?: DiffOptions;
}

const oldTab = tab(base);
const p1 = onePercent(1);
const cases: Case[] = [
  { name: 'identical', old: oldTab, new: tab(base) },
  { name: '1% changed (edits+inserts+deletes)', old: oldTab, new: withEdits(p1.ids, p1.edited) },
  {
    name: '1% changed, 10% of rows blank',
    old: base.map((i) => (i % 10 === 0 ? [] : rowFor(i))),
    new: p1.ids.map((i) => (i % 10 === 0 ? [] : rowFor(i))),
  },
  { name: 'everything changed (all rows rewritten)', old: oldTab, new: base.map((i) => rowFor(i + N)) },
  {
    name: 'block of 1,000 rows moved 50,000 down',
    old: oldTab,
    new: tab([
      ...base.slice(0, 10_000),
      ...base.slice(11_000, 61_000),
      ...base.slice(10_000, 11_000),
      ...base.slice(61_000),
    ]),
  },
  { name: 'all rows shuffled (Myers capped -> positional)', old: oldTab, new: tab(shuffled(2)) },
  {
    name: 'all rows shuffled, maxCost 20,000',
    old: oldTab,
    new: tab(shuffled(2)),
    options: { maxCost: 20_000 },
  },
  {
    name: 'sorted by a column (Myers capped -> positional)',
    old: oldTab,
    new: [...tab(base)].sort((a, b) => String(a[6]).localeCompare(String(b[6]))),
  },
  { name: 'empty -> 100,000 rows', old: [], new: oldTab },
];

function counts(changes: RowChange[]): string {
  const c = { inserted: 0, updated: 0, deleted: 0 };
  for (const ch of changes) c[ch.kind]++;
  return `${c.inserted} ins / ${c.updated} upd / ${c.deleted} del`;
}

function check(c: Case, changes: RowChange[]): void {
  const got = applyDiff(c.old, changes);
  if (got.length !== c.new.length || got.some((row, i) => !rowsEqual(row, c.new[i]!))) {
    throw new Error(`${c.name}: applyDiff(old, diff) does not give the new rows`);
  }
}

console.log(
  `node ${process.version}, ${N.toLocaleString('en')} rows x ${WIDTH} columns, median of ${RUNS} runs`,
);
for (const c of cases) {
  let changes: RowChange[] = [];
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const t0 = performance.now();
    changes = diffRows(c.old, c.new, c.options);
    times.push(performance.now() - t0);
  }
  check(c, changes);
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(
    `${c.name.padEnd(50)} median ${median.toFixed(1).padStart(7)} ms  (min ${times[0]!.toFixed(1)}, max ${times[times.length - 1]!.toFixed(1)})  ${counts(changes)}`,
  );
}
