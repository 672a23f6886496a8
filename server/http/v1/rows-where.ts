/**
 * Writes by filter (docs/api.md "Writes by filter"): `PATCH /v1/sheets/{sheetId}/rows?where=EXPR` sets the body's
 * fields in every row `where` keeps, `DELETE /v1/sheets/{sheetId}/rows?where=EXPR` deletes them; `where` is
 * required. At most 500 rows per call: more is 409 `too_many_rows` with their `count`, unless `limit` (1-500)
 * takes the first ones in sheet order. All or none, in one write whose rows are found in the tab as the write
 * reads it: the rows found beforehand on the copy (paced) stand when the write reads that same version, else the
 * `where` is evaluated again on what it read. `dry_run=true` answers from the copy and writes nothing.
 */
import { AppError } from '../../errors.ts';
import { columnOf } from '../../rows/engine.ts';
import { parseUint, parseWhereParameter, singleQuery } from '../../rows/query-params.ts';
import { whereColumns, whereRowsNow } from '../../rows/where/evaluate.ts';
import { whereHits } from '../../rows/where/where-hits.ts';
import type { CellInput, Mutation, TabSnapshot } from '../../sources/source.ts';
import { rowsOwner } from '../../sources/tab-rows.ts';
import { writeMutations } from '../mutation-errors.ts';
import type { RouteContext, RouteRequest, RouteResponse, RouteTable } from '../route-table.ts';
import { parseInputMode, parseUpdateBody, refuseIfMatch } from '../row-input.ts';

export const MAX_ROWS_BY_FILTER = 500;
const ROWS = '/v1/sheets/:sheetId/rows';

type Op = 'update' | 'delete';

interface Picked {
  /** Row numbers (1-based) as the tab had them before the write. */
  rows: number[];
  remaining: number;
}

export function mountRowsWhereRoutes(routes: RouteTable): void {
  routes.patch(ROWS, { access: 'read_write', resource: 'tab' }, (req, res, ctx) =>
    byFilter(req, res, ctx, 'update'),
  );
  routes.delete(ROWS, { access: 'read_write', resource: 'tab' }, (req, res, ctx) =>
    byFilter(req, res, ctx, 'delete'),
  );
}

async function byFilter(
  req: RouteRequest,
  res: RouteResponse,
  { key, spreadsheet, tab }: RouteContext<'read_write', 'tab'>,
  op: Op,
): Promise<void> {
  refuseIfMatch(req.get('if-match'), 'a write by filter');
  const where = parseWhereParameter(req.query);
  if (!where) {
    throw new AppError('invalid_parameter', 'Parameter "where" is required: it says which rows to write.', {
      parameter: 'where',
    });
  }
  const limit = parseLimit(req.query);
  const values = op === 'update' ? parseUpdateBody(req.body) : null;
  const found = await whereHits(tab, where);
  const counted = op === 'update' ? 'updated' : 'deleted';
  if (singleQuery(req.query, 'dry_run') === 'true') {
    const picked = pick(found, limit);
    res
      .status(200)
      .json({ [counted]: picked.rows.length, rows: picked.rows, remaining: picked.remaining, dry_run: true });
    return;
  }
  // Nothing matches in the copy: nothing to write (a row an outside edit adds meanwhile is the next call's).
  if (found.length === 0) {
    res.status(200).json({ [counted]: 0, rows: [], remaining: 0 });
    return;
  }
  let picked: Picked | null = null;
  const mutationsFor = (fresh: TabSnapshot): Mutation[] => {
    const rows =
      rowsOwner(fresh) === rowsOwner(tab)
        ? found
        : whereRowsNow(
            fresh,
            where.expression,
            whereColumns(where.expression, (name) => columnOf(fresh, name)),
          );
    picked = pick(rows, limit);
    return mutationsOf(picked.rows, op, values);
  };
  const options = {
    allowFormulas: key.allowFormulas,
    userEntered: parseInputMode(req.query.input),
    mutationsFor,
  };
  await writeMutations(spreadsheet, tab.sourceSheetId, [], options, 'single');
  const done = picked as Picked | null;
  if (!done) throw new Error('write by filter: the write ran without finding its rows');
  res.status(200).json({ [counted]: done.rows.length, rows: done.rows, remaining: done.remaining });
}

function parseLimit(query: Record<string, unknown>): number | undefined {
  const raw = singleQuery(query, 'limit');
  if (raw === undefined) return undefined;
  const n = parseUint('limit', raw);
  if (n < 1 || n > MAX_ROWS_BY_FILTER) {
    throw new AppError('invalid_parameter', `Parameter "limit" must be 1 to ${MAX_ROWS_BY_FILTER}.`, {
      parameter: 'limit',
    });
  }
  return n;
}

/** The first rows in sheet order, at most `limit`; more than 500 without a limit is refused. */
function pick(found: Uint32Array, limit: number | undefined): Picked {
  if (limit === undefined && found.length > MAX_ROWS_BY_FILTER) {
    throw new AppError(
      'too_many_rows',
      `${found.length} rows match; at most ${MAX_ROWS_BY_FILTER} are written per call: pass limit (1-${MAX_ROWS_BY_FILTER}) to take the first ones in sheet order.`,
      { count: found.length, limit: MAX_ROWS_BY_FILTER },
    );
  }
  const taken = Array.from(found.subarray(0, limit ?? found.length), (r) => r + 1);
  return { rows: taken, remaining: found.length - taken.length };
}

function mutationsOf(rows: number[], op: Op, values: Record<string, CellInput> | null): Mutation[] {
  return rows.map((row) => (op === 'update' ? { op, row, values: values! } : { op, row }));
}
