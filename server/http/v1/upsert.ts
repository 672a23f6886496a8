/**
 * `POST /v1/sheets/{sheetId}/rows:upsert` (and `/rows/upsert`): writes by key (docs/api.md "Upsert"). The body
 * names 1 to 3 key columns and up to 500 rows, each carrying every key column; each row updates the one data row
 * its key matches, or is appended, all or none, in one write whose rows are found in the tab as it is when the
 * write runs (sources/upsert-plan.ts). `dry_run=true` answers what would be done, against the tab as read now,
 * and writes nothing. `Idempotency-Key` is the pipeline's, as for any write.
 */
import { AppError } from '../../errors.ts';
import { singleQuery } from '../../rows/query-params.ts';
import type { CellInput } from '../../sources/source.ts';
import {
  KEY_RULE,
  keyIdentity,
  missingKeyColumn,
  planUpsert,
  type UpsertPlan,
  upsertKey,
} from '../../sources/upsert-plan.ts';
import { writeMutations } from '../mutation-errors.ts';
import type { RouteHandler, RouteTable } from '../route-table.ts';
import { parseInputMode, parseRowObject, refuseIfMatch } from '../row-input.ts';

export const MAX_UPSERT_ROWS = 500;

interface UpsertBody {
  key: string[];
  rows: Record<string, CellInput>[];
}

export function parseUpsertBody(body: unknown): UpsertBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('invalid_body', 'Request body must be a JSON object: {"key": [...], "rows": [...]}.');
  }
  const { key, rows, ...rest } = body as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) {
    throw new AppError('invalid_body', `Unexpected key "${extra}"; the body takes "key" and "rows".`);
  }
  const columns = upsertKey(key);
  if (!columns) throw new AppError('invalid_body', KEY_RULE);
  if (!Array.isArray(rows) || rows.length === 0 || rows.length > MAX_UPSERT_ROWS) {
    throw new AppError('invalid_body', `"rows" must be an array of 1 to ${MAX_UPSERT_ROWS} row objects.`);
  }
  const parsed = rows.map((raw, index) => {
    const values = parseRowObject(raw, `rows[${index}]`, index);
    const missing = missingKeyColumn(columns, values);
    if (missing !== undefined) {
      throw new AppError('invalid_body', `rows[${index}] has no value for the key column "${missing}".`, {
        index,
      });
    }
    return values;
  });
  refuseRepeatedKeys(columns, parsed);
  return { key: columns, rows: parsed };
}

/** Two input rows with one key: which would win is not for the server to guess. */
function refuseRepeatedKeys(key: string[], rows: Record<string, CellInput>[]): void {
  const seen = new Map<string, number>();
  rows.forEach((values, index) => {
    const id = keyIdentity(key, values);
    const first = seen.get(id);
    if (first !== undefined) {
      throw new AppError(
        'invalid_body',
        `rows[${index}] has the same key as rows[${first}]; send each key once.`,
        {
          index,
        },
      );
    }
    seen.set(id, index);
  });
}

export function mountUpsertRoutes(routes: RouteTable): void {
  const upsert: RouteHandler<'read_write', 'tab'> = async (req, res, { key, spreadsheet, tab }) => {
    refuseIfMatch(req.get('if-match'), 'an upsert');
    const body = parseUpsertBody(req.body);
    const dryRun = singleQuery(req.query, 'dry_run') === 'true';
    if (dryRun) {
      const plan = planUpsert(tab, body.key, body.rows);
      res.status(200).json({ ...counts(plan), rows: plan.actions, dry_run: true });
      return;
    }
    let plan: UpsertPlan | null = null;
    const options = {
      allowFormulas: key.allowFormulas,
      userEntered: parseInputMode(req.query.input),
      mutationsFor: (fresh: typeof tab) => {
        plan = planUpsert(fresh, body.key, body.rows);
        return plan.mutations;
      },
    };
    await writeMutations(spreadsheet, tab.sourceSheetId, [], options, 'rows');
    const done = plan as UpsertPlan | null;
    if (!done) throw new Error('upsert: the write ran without planning its rows');
    res.status(200).json({ ...counts(done), rows: done.actions });
  };
  // path-to-regexp v8: a literal colon is escaped, else `:upsert` would be a parameter.
  routes.post('/v1/sheets/:sheetId/rows\\:upsert', { access: 'read_write', resource: 'tab' }, upsert);
  // Before the row routes (app.ts): `rows/upsert` is never read as a row number; other methods there are 405.
  routes.reserve('/v1/sheets/:sheetId/rows/upsert', ['POST']);
  routes.post('/v1/sheets/:sheetId/rows/upsert', { access: 'read_write', resource: 'tab' }, upsert);
}

function counts(plan: UpsertPlan): { updated: number; appended: number } {
  const updated = plan.actions.filter((a) => a.action === 'updated').length;
  return { updated, appended: plan.actions.length - updated };
}
