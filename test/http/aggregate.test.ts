/**
 * Aggregates (`/api/.../aggregate` and `/v1/sheets/{sheetId}/aggregate`) checked against values computed here from
 * the rows as written, for a workbook written by openpyxl and the same spreadsheet on Google (the Sheets fake):
 * groups by typed value (an empty cell its own group, `5` apart from `'5'`), count, count(col), count_distinct,
 * sum and avg over number cells only (null when none), min and max in `sort`'s order; with `where`, `search`, a
 * sort on a metric, paging and every format; and the refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, KINDS, startHarness } from '../helpers/harness.ts';
import { connectTable, type TableBook } from '../helpers/table-book.ts';

type Cell = string | number | boolean | null;

const HEADER = ['Customer', 'Region', 'Total', 'Paid'];
const CUSTOMERS = ['Ada', 'Bob', 'ada', 'Cy', null, 5, '5'];
const REGIONS = ['north', 'south', 'east'];

/** Seeded rows: the same on every run. */
function tableRows(): Cell[][] {
  let seed = 3;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  return Array.from({ length: 90 }, () => {
    const total = next() < 0.1 ? null : next() < 0.05 ? 'n/a' : Math.round(next() * 1000) / 4;
    return [
      CUSTOMERS[Math.floor(next() * CUSTOMERS.length)]!,
      next() < 0.1 ? null : REGIONS[Math.floor(next() * 3)]!,
      total,
      next() < 0.5,
    ];
  });
}

const ROWS = tableRows();

/** What the contract says each group holds, computed from the rows as written. */
function expectedGroups(rows: Cell[][]): Map<Cell, Record<string, Cell>> {
  const groups = new Map<Cell, Cell[][]>();
  for (const row of rows) groups.set(row[0]!, [...(groups.get(row[0]!) ?? []), row]);
  const out = new Map<Cell, Record<string, Cell>>();
  for (const [customer, members] of groups) {
    const totals = members.map((r) => r[2]!);
    const numbers = totals.filter((t): t is number => typeof t === 'number');
    const filled = totals.filter((t) => t !== null);
    // sort's order: numbers ascending, then text; empty cells ignored.
    const ordered = [...numbers].sort((a, b) => a - b) as Cell[];
    ordered.push(...filled.filter((t) => typeof t === 'string'));
    out.set(customer, {
      Customer: customer,
      count: members.length,
      'count(Total)': filled.length,
      'count_distinct(Region)': new Set(members.map((r) => r[1]).filter((r) => r !== null)).size,
      'sum(Total)': numbers.length === 0 ? null : numbers.reduce((a, b) => a + b, 0),
      'avg(Total)': numbers.length === 0 ? null : numbers.reduce((a, b) => a + b, 0) / numbers.length,
      'min(Total)': ordered[0] ?? null,
      'max(Total)': ordered.at(-1) ?? null,
    });
  }
  return out;
}

const METRICS = 'count,count(Total),count_distinct(Region),sum(Total),avg(Total),min(Total),max(Total)';

describe.each(KINDS)('aggregates on %s', (kind) => {
  let h: Harness;
  let api: string;
  let v1: string;
  let table: TableBook;

  beforeAll(async () => {
    h = await startHarness({ kind });
    table = await connectTable(h, 'Orders', HEADER, ROWS);
    api = `/api/spreadsheets/${table.book.connection.userKey}/Orders/aggregate`;
    v1 = `${table.sheet}/aggregate`;
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await table?.remove();
  });

  const get = async (url: string) => {
    const res = await h.fetch(url);
    const body = res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text();
    return { res, body };
  };

  it('computes every metric per group as the contract says, on both routes', async () => {
    const expected = expectedGroups(ROWS);
    const query = `?group_by=Customer&metrics=${encodeURIComponent(METRICS)}`;
    const { body: bare } = await get(`${api}${query}`);
    const { body: shaped } = await get(`${v1}${query}`);
    expect(shaped.data).toEqual(bare);
    expect(shaped.meta).toEqual({ total: expected.size, limit: 100, offset: 0, matched: ROWS.length });
    expect(bare).toHaveLength(expected.size);
    for (const group of bare) {
      const want = expected.get(group.Customer)!;
      // To 15 significant digits, as a spreadsheet computes them: no binary tail such as 8026.579999999999.
      for (const metric of ['sum(Total)', 'avg(Total)'])
        if (group[metric] !== null) expect(group[metric]).toBe(Number(group[metric].toPrecision(15)));
      expect(group, `group ${JSON.stringify(group.Customer)}`).toEqual({
        ...want,
        'avg(Total)': group['avg(Total)'] === null ? null : expect.closeTo(want['avg(Total)'] as number, 9),
        'sum(Total)': group['sum(Total)'] === null ? null : expect.closeTo(want['sum(Total)'] as number, 9),
      });
    }
    // Groups by typed value: 5 and '5' apart, 'Ada' and 'ada' apart, empty cells in their own group (null), and
    // by default in sort's order (numbers, text, empty last), groups sort calls equal in order of appearance.
    const firstSeen = (c: Cell) => ROWS.findIndex((r) => r[0] === c);
    expect(bare.map((g: { Customer: Cell }) => g.Customer)).toEqual(
      [...expected.keys()].sort((a, b) => sortOrder(a, b) || firstSeen(a) - firstSeen(b)),
    );
  });

  it('aggregates only the rows where and search keep, sorts by a metric and pages', async () => {
    const where = "Paid = true and Region != 'east'";
    const kept = ROWS.filter((r) => r[3] === true && r[1] !== 'east' && String(r[0] ?? '').includes('a'));
    const expected = [...expectedGroups(kept).values()].sort(
      (a, b) => (b.count as number) - (a.count as number) || 0,
    );
    const url = `${v1}?group_by=Customer&where=${encodeURIComponent(where)}&search=Customer:a&sort=-count&limit=1&offset=1`;
    const { res, body } = await get(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe(String(expected.length));
    expect(body.meta).toMatchObject({ total: expected.length, limit: 1, offset: 1, matched: kept.length });
    expect(body.data).toHaveLength(1);
    expect(body.data[0].count).toBe(expected[1]!.count);
  });

  it('answers one group without group_by, also when nothing matches', async () => {
    const all = await get(`${api}?metrics=count,sum(Total)`);
    const numbers = ROWS.map((r) => r[2]).filter((t): t is number => typeof t === 'number');
    expect(all.body).toEqual([
      {
        count: ROWS.length,
        'sum(Total)': expect.closeTo(
          numbers.reduce((a, b) => a + b, 0),
          9,
        ),
      },
    ]);
    const none = await get(`${api}?metrics=count,sum(Total)&where=${encodeURIComponent('Total > 1e9')}`);
    expect(none.body).toEqual([{ count: 0, 'sum(Total)': null }]);
  });

  it('renders every format', async () => {
    const csv = await get(`${api}?group_by=Region&metrics=count&format=csv`);
    expect(csv.body.split('\r\n')[0]).toBe('Region,count');
    const xml = await get(`${api}?group_by=Region&format=xml`);
    expect(xml.body).toContain('<field name="count" type="number">');
    expect(xml.body).toContain(`matched="${ROWS.length}"`);
    const jsonp = await get(`${api}?group_by=Region&format=jsonp&callback=cb`);
    expect(jsonp.body).toMatch(/^\/\*\*\/ ?cb\(|^cb\(/);
  });

  it('refuses what it cannot answer in the envelope, and only GET is allowed', async () => {
    const metric = await get(`${api}?metrics=${encodeURIComponent('count, median(Total)')}`);
    expect(metric.res.status).toBe(400);
    expect(metric.body.error).toMatchObject({ code: 'invalid_parameter', parameter: 'metrics', position: 7 });
    const column = await get(`${api}?metrics=sum(Nope)`);
    expect(column.body.error).toMatchObject({ code: 'unknown_field', field: 'Nope', parameter: 'metrics' });
    const sort = await get(`${api}?group_by=Region&sort=Total`);
    expect(sort.body.error).toMatchObject({ code: 'unknown_field', field: 'Total', parameter: 'sort' });
    const wide = await get(`${api}?group_by=Customer,Region,Total,Paid,Customer2`);
    expect(wide.res.status).toBe(400);
    const put = await h.fetch(api, {
      method: 'PUT',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(put.status).toBe(405);
  });
});

/** sort's order over group values: numbers, then text (case and accents ignored), then booleans; null last. */
function sortOrder(a: Cell, b: Cell): number {
  const rank = (v: Cell) => (v === null ? 4 : typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === 'number') return a - (b as number);
  if (typeof a === 'string') return a.toLowerCase().localeCompare((b as string).toLowerCase());
  return 0;
}
