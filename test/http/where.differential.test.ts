/**
 * `where` against an oracle written here from the contract's rules ("Query like a database"), not by calling the
 * engine: hundreds of seeded random expressions over a tab written by openpyxl with every cell type (numbers,
 * text with case, accents and digits, booleans, dates, empty cells, a column of mixed types), asked of both list
 * routes (`/api` and `/v1`), for a local workbook and for the same spreadsheet on Google (the Sheets fake). The
 * oracle reads the rows' typed values from the API (what `where` is defined over) and decides each row itself:
 * typed comparisons true only for a non-empty cell of the literal's type, text `=` exact, text order folded and
 * collated, `contains`/`starts with`/`ends with` folded on any value's text, `not` the exact complement.
 * Then the text-order property: the rows where `Word >= x` are exactly a tail of `sort=Word`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../server/lib/seeded-random.ts';
import { type Harness, KINDS, startHarness } from '../helpers/harness.ts';
import { type TableCell, writeTableWithOpenpyxl } from '../helpers/openpyxl.ts';

type Cell = string | number | boolean | null;
type Lit = string | number | boolean;

const ROWS = 160;
const COLUMNS = ['Name', 'Total', 'Active', 'Day', 'Code', 'Mixed', 'Word'];
const WORDS = [
  'ann',
  'Ann',
  'ÄNN',
  'zoë',
  'Zoe',
  'émile',
  'Emile',
  'straße',
  'item2',
  'item10',
  'Item9',
  'm',
  'M-1',
  'x y',
];

/** Rows for openpyxl: `{"date": ...}` becomes a datetime cell. */
function tableRows(): TableCell[][] {
  const next = seededRandom(7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  return Array.from({ length: ROWS }, (_, i) => [
    next() < 0.1 ? null : pick(WORDS),
    next() < 0.1 ? null : Math.round((next() * 2000 - 500) * 4) / 4,
    next() < 0.2 ? null : next() < 0.5,
    next() < 0.15 ? null : { date: `2024-0${1 + Math.floor(next() * 9)}-1${Math.floor(next() * 9)}` },
    next() < 0.1 ? null : `${pick(['item', 'Item', 'ITEM-'])}${Math.floor(next() * 30)}`,
    pick([null, 5, 5.5, -1, '5', 'five', true, false, 'Five', '']),
    pick(WORDS) + (i % 3 === 0 ? ` ${i}` : ''),
  ]);
}

// ---- the oracle: the contract's rules, written here ----

const SPELLED: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l' };
const fold = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[ßæœøł]/g, (c) => SPELLED[c]!);
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
const textOf = (v: Cell) => (v === null ? '' : String(v));

type Node =
  | { k: 'cmp'; col: string; op: string; lit: Lit }
  | { k: 'in'; col: string; not: boolean; lits: Lit[] }
  | { k: 'between'; col: string; not: boolean; low: Lit; high: Lit }
  | { k: 'null'; col: string; not: boolean }
  | { k: 'text'; col: string; how: 'contains' | 'starts with' | 'ends with'; s: string }
  | { k: 'not'; item: Node }
  | { k: 'and' | 'or'; items: Node[] };

/** `v op lit` for a non-empty cell of the literal's type; false otherwise. */
function compares(v: Cell, op: string, lit: Lit): boolean {
  if (v === null || typeof v !== typeof lit) return false;
  let c: number;
  if (typeof lit === 'string') {
    if (op === '=') return v === lit;
    c = collator.compare(fold(v as string), fold(lit));
  } else if (typeof lit === 'number') c = (v as number) - lit;
  else c = Number(v) - Number(lit);
  switch (op) {
    case '=':
      return c === 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

function holds(node: Node, row: Record<string, Cell>): boolean {
  switch (node.k) {
    case 'cmp':
      if (node.op === '!=' || node.op === '<>') return !compares(row[node.col]!, '=', node.lit);
      return compares(row[node.col]!, node.op, node.lit);
    case 'in':
      return node.not !== node.lits.some((l) => compares(row[node.col]!, '=', l));
    case 'between': {
      const v = row[node.col]!;
      return node.not !== (compares(v, '>=', node.low) && compares(v, '<=', node.high));
    }
    case 'null':
      return node.not !== (row[node.col] === null);
    case 'text': {
      const hay = fold(textOf(row[node.col]!));
      const needle = fold(node.s);
      if (node.how === 'contains') return hay.includes(needle);
      return node.how === 'starts with' ? hay.startsWith(needle) : hay.endsWith(needle);
    }
    case 'not':
      return !holds(node.item, row);
    case 'and':
      return node.items.every((i) => holds(i, row));
    case 'or':
      return node.items.some((i) => holds(i, row));
  }
}

// ---- random expressions, written as text ----

function generator(seed: number) {
  const next = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const kw = (word: string) =>
    next() < 0.3 ? word.toUpperCase() : next() < 0.2 ? word[0]!.toUpperCase() + word.slice(1) : word;
  const space = () => pick([' ', ' ', '  ', '\t', '\n']);
  const literal = (): Lit =>
    pick<() => Lit>([
      () => Math.round((next() * 2400 - 600) * 2) / 2,
      () => pick([5, 5.5, -1, 0]),
      () => pick(WORDS),
      () => pick(['m', 'item15', 'Item3', '2024-05', '2024-03-15', '5', "it's", 'zz', '']),
      () => next() < 0.5,
    ])();
  /** Mostly a literal of the column's own type, so that most predicates keep some rows and not others. */
  const literalFor = (col: string): Lit => {
    if (next() < 0.25) return literal();
    switch (col) {
      case 'Total':
        return Math.round((next() * 2000 - 500) * 2) / 2;
      case 'Active':
        return next() < 0.5;
      case 'Day':
        return `2024-0${1 + Math.floor(next() * 9)}-${10 + Math.floor(next() * 9)}`;
      case 'Code':
        return `${pick(['item', 'Item', 'ITEM-'])}${Math.floor(next() * 30)}`;
      case 'Mixed':
        return pick([5, 5.5, -1, '5', 'five', 'Five', true, false]);
      default:
        return pick([...WORDS, 'm', 'item5', 'émile 3']);
    }
  };
  const litText = (l: Lit) =>
    typeof l === 'string'
      ? `'${l.replaceAll("'", "''")}'`
      : typeof l === 'boolean'
        ? kw(String(l))
        : String(l);
  const colText = (c: string) => (next() < 0.3 ? `"${c}"` : c);

  const predicate = (): { node: Node; text: string } => {
    const col = pick(COLUMNS);
    const c = colText(col);
    switch (Math.floor(next() * 5)) {
      case 0: {
        const op = pick(['=', '!=', '<>', '<', '<=', '>', '>=']);
        const lit = literalFor(col);
        return { node: { k: 'cmp', col, op, lit }, text: `${c}${space()}${op}${space()}${litText(lit)}` };
      }
      case 1: {
        const not = next() < 0.3;
        const lits = Array.from({ length: 1 + Math.floor(next() * 4) }, () => literalFor(col));
        const list = lits.map(litText).join(`,${space()}`);
        return {
          node: { k: 'in', col, not, lits },
          text: `${c} ${not ? `${kw('not')} ` : ''}${kw('in')} (${list})`,
        };
      }
      case 2: {
        const not = next() < 0.3;
        const low = literalFor(col);
        const high = typeof low === 'number' ? low + Math.round(next() * 800) : literalFor(col);
        return {
          node: { k: 'between', col, not, low, high },
          text: `${c} ${not ? `${kw('not')} ` : ''}${kw('between')} ${litText(low)} ${kw('and')} ${litText(high)}`,
        };
      }
      case 3: {
        const not = next() < 0.5;
        return {
          node: { k: 'null', col, not },
          text: `${c} ${kw('is')} ${not ? `${kw('not')} ` : ''}${kw('null')}`,
        };
      }
      default: {
        const how = pick(['contains', 'starts with', 'ends with'] as const);
        const s = pick(['an', 'AN', 'e', 'É', 'item1', '5', 'tru', 'ss', '2024-0', '', 'zo']);
        const words = how.split(' ').map(kw).join(' ');
        return { node: { k: 'text', col, how, s }, text: `${c} ${words} '${s}'` };
      }
    }
  };

  const expression = (depth: number): { node: Node; text: string } => {
    const roll = next();
    if (depth > 2 || roll < 0.4) return predicate();
    if (roll < 0.5) {
      const inner = expression(depth + 1);
      return { node: { k: 'not', item: inner.node }, text: `${kw('not')} (${inner.text})` };
    }
    const op = next() < 0.5 ? 'and' : 'or';
    const parts = Array.from({ length: 2 + Math.floor(next() * 2) }, () => expression(depth + 1));
    return {
      node: { k: op, items: parts.map((p) => p.node) },
      text: parts.map((p) => `(${p.text})`).join(`${space()}${kw(op)}${space()}`),
    };
  };
  return () => expression(0);
}

describe.each(KINDS)('where on %s', (kind) => {
  let h: Harness;
  let dir: string;
  let sheetId: string;
  let userKey: string;
  let rows: Record<string, Cell>[];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-where-'));
    h = await startHarness({ kind });
    const file = path.join(dir, 'data.xlsx');
    await writeTableWithOpenpyxl(file, 'Data', COLUMNS, tableRows());
    const book = await h.connectBook(file);
    userKey = book.connection.userKey;
    const listed = await (await h.fetch(`/v1/spreadsheets/${book.connection.spreadsheetId}`)).json();
    sheetId = listed.sheets[0].sheet_id;
    rows = await (await h.fetch(`/api/spreadsheets/${userKey}/Data?limit=1000`)).json();
    expect(rows).toHaveLength(ROWS);
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The row numbers (1-based) a route answers for `where`. */
  async function asked(route: 'api' | 'v1', where: string): Promise<number[]> {
    const query = `where=${encodeURIComponent(where)}&meta=true&row_numbers=true&limit=${route === 'api' ? 1000 : 500}`;
    const url =
      route === 'api' ? `/api/spreadsheets/${userKey}/Data?${query}` : `/v1/sheets/${sheetId}/rows?${query}`;
    const res = await h.fetch(url);
    const body = await res.json();
    if (res.status !== 200) throw new Error(`${where}: ${res.status} ${JSON.stringify(body)}`);
    return body.meta.rows;
  }

  it('keeps exactly the rows the contract says, for 300 random expressions on both routes', async () => {
    const make = generator(kind === 'workbook' ? 11 : 12);
    let partial = 0;
    for (let i = 0; i < 300; i++) {
      const { node, text } = make();
      const expected = rows.flatMap((row, r) => (holds(node, row) ? [r + 1] : []));
      if (expected.length > 0 && expected.length < ROWS) partial++;
      const route = i % 2 === 0 ? 'api' : 'v1';
      expect(await asked(route, text), `${route} where=${text}`).toEqual(expected);
    }
    // The expressions tell rows apart: most keep some rows and not others.
    expect(partial).toBeGreaterThan(120);
  }, 120_000);

  it('answers Word >= x with exactly a tail of sort=Word, and Word < x with the rest', async () => {
    const sorted = await (
      await h.fetch(`/v1/sheets/${sheetId}/rows?sort=Word&limit=500&row_numbers=true`)
    ).json();
    const order: number[] = sorted.meta.rows;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom(...WORDS, 'item3', 'émile 9', ''), fc.string({ maxLength: 4 })),
        async (x) => {
          const literal = `'${x.replaceAll("'", "''")}'`;
          const tail = new Set(await asked('v1', `Word >= ${literal}`));
          const head = new Set(await asked('api', `Word < ${literal}`));
          const cut = order.length - tail.size;
          expect(new Set(order.slice(cut))).toEqual(tail);
          expect(new Set(order.slice(0, cut))).toEqual(head);
        },
      ),
      { numRuns: 60, seed: 5 },
    );
  }, 120_000);
});
