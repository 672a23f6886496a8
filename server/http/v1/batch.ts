import { AppError, isAppError } from '../../errors.ts';
import type { CellInput, Mutation, TabSnapshot } from '../../sources/source.ts';
import { KEY_RULE, keyIdentity, missingKeyColumn, planUpsert, upsertKey } from '../../sources/upsert-plan.ts';
import { atMutation, writeMutations } from '../mutation-errors.ts';
import type { RouteHandler, RouteTable } from '../route-table.ts';
import { parseInputMode, parseRowObject, refuseIfMatch } from '../row-input.ts';

export const MAX_MUTATIONS = 500;

/** A batch's upsert: the row its key names in the tab as the write reads it is updated, else it is appended. */
interface UpsertOp {
  op: 'upsert';
  key: string[];
  values: Record<string, CellInput>;
}

type BatchOp = Mutation | UpsertOp;

/** The keys each op takes, all required; anything else is refused so a typo (`"vals"`) is not silently dropped. */
const KEYS: Record<BatchOp['op'], readonly string[]> = {
  append: ['op', 'values'],
  update: ['op', 'row', 'values'],
  delete: ['op', 'row'],
  upsert: ['op', 'key', 'values'],
};

const isOp = (op: unknown): op is BatchOp['op'] => typeof op === 'string' && Object.hasOwn(KEYS, op);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A client's value for a message, kept short (`5`, `"5"`, `null`, `an object`). */
function shown(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (typeof v === 'object' && v !== null) return Array.isArray(v) ? 'an array' : 'an object';
  return String(v);
}

function parseRow(raw: unknown, index: number): number {
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 1) {
    throw atMutation(index, 'invalid_body', `"row" must be a positive integer, got ${shown(raw)}.`);
  }
  return raw;
}

/** Append values must hold a value: an all-empty row after the last row would not be a row. */
function appendValues(raw: unknown, index: number): Record<string, CellInput> {
  const values = parseValues(raw, index);
  if (!Object.values(values).some((v) => v !== null && v !== '')) {
    throw atMutation(index, 'invalid_body', 'an appended row needs at least one non-empty value.');
  }
  return values;
}

function parseValues(raw: unknown, index: number): Record<string, CellInput> {
  let values: Record<string, CellInput>;
  try {
    values = parseRowObject(raw, `mutations[${index}].values`);
  } catch (e) {
    if (isAppError(e)) throw new AppError(e.code, e.message, { ...e.details, index });
    throw e;
  }
  if (Object.keys(values).length === 0) {
    throw atMutation(index, 'invalid_body', '"values" names no field.');
  }
  return values;
}

function parseMutation(raw: unknown, index: number): BatchOp {
  if (!isPlainObject(raw)) throw atMutation(index, 'invalid_body', 'each mutation must be a JSON object.');
  if (!isOp(raw.op)) {
    throw atMutation(
      index,
      'invalid_body',
      `"op" must be "append", "update", "delete" or "upsert", got ${shown(raw.op)}.`,
    );
  }
  const op = raw.op;
  const allowed = KEYS[op];
  const extra = Object.keys(raw).find((k) => !allowed.includes(k));
  if (extra !== undefined) {
    throw atMutation(
      index,
      'invalid_body',
      `"${op}" takes ${allowed.join(', ')}; unexpected key "${extra}".`,
    );
  }
  const missing = allowed.find((k) => !Object.hasOwn(raw, k));
  if (missing !== undefined) throw atMutation(index, 'invalid_body', `"${op}" needs "${missing}".`);
  switch (op) {
    case 'append':
      return { op, values: appendValues(raw.values, index) };
    case 'update':
      return { op, row: parseRow(raw.row, index), values: parseValues(raw.values, index) };
    case 'delete':
      return { op, row: parseRow(raw.row, index) };
    case 'upsert':
      return upsertOp(raw.key, raw.values, index);
  }
}

function upsertOp(rawKey: unknown, rawValues: unknown, index: number): UpsertOp {
  const key = upsertKey(rawKey);
  if (!key) throw atMutation(index, 'invalid_body', KEY_RULE);
  const values = parseValues(rawValues, index);
  const missing = missingKeyColumn(key, values);
  if (missing !== undefined)
    throw atMutation(index, 'invalid_body', `"values" has no value for the key column "${missing}".`);
  return { op: 'upsert', key, values };
}

/**
 * The batch's mutations for the tab as the write reads it: each upsert becomes the update of the row its key
 * names, or an append (row numbers are the tab's before the batch, as for every mutation of it).
 */
function resolveUpserts(ops: BatchOp[]): ((tab: TabSnapshot) => Mutation[]) | undefined {
  if (!ops.some((op) => op.op === 'upsert')) return undefined;
  const seen = new Map<string, number>();
  ops.forEach((op, index) => {
    if (op.op !== 'upsert') return;
    const id = keyIdentity(op.key, op.values);
    const first = seen.get(id);
    if (first !== undefined)
      throw atMutation(index, 'invalid_body', `the same key as mutations[${first}]; send each key once.`);
    seen.set(id, index);
  });
  return (tab) =>
    ops.map((op, index) => {
      if (op.op !== 'upsert') return op;
      try {
        return planUpsert(tab, op.key, [op.values]).mutations[0]!;
      } catch (e) {
        if (isAppError(e))
          throw new AppError(e.code, e.message.replace(/^rows\[0\]: /, ''), { ...e.details, index });
        throw e;
      }
    });
}

/**
 * `{"mutations":[...]}` with 1..500 well-formed mutations. Only the shape is checked here; field names and row
 * numbers are checked by the source against the tab as it is when the write runs (and before anything is written).
 */
export function parseBatchBody(body: unknown): BatchOp[] {
  if (!isPlainObject(body)) {
    throw new AppError('invalid_body', 'Request body must be a JSON object: {"mutations": [...]}.');
  }
  const extra = Object.keys(body).find((k) => k !== 'mutations');
  if (extra !== undefined) {
    throw new AppError('invalid_body', `Unexpected key "${extra}" in the body; only "mutations" is allowed.`);
  }
  const list = body.mutations;
  if (!Array.isArray(list)) throw new AppError('invalid_body', '"mutations" must be an array of mutations.');
  if (list.length === 0) throw new AppError('invalid_body', '"mutations" is empty; send 1 to 500 mutations.');
  if (list.length > MAX_MUTATIONS) {
    throw new AppError(
      'invalid_body',
      `At most ${MAX_MUTATIONS} mutations per batch, got ${list.length}; split the batch.`,
      { limit: MAX_MUTATIONS, count: list.length },
    );
  }
  return list.map(parseMutation);
}

/** `POST /v1/sheets/{sheetId}/rows:batchUpdate` (and `/rows/batchUpdate`): up to 500 mutations, all or none. */
export function mountBatchRoutes(routes: RouteTable): void {
  const batchUpdate: RouteHandler<'read_write', 'tab'> = async (req, res, { key, spreadsheet, tab }) => {
    refuseIfMatch(req.get('if-match'), 'a batch');
    const ops = parseBatchBody(req.body);
    const userEntered = parseInputMode(req.query.input);
    const mutationsFor = resolveUpserts(ops);
    const options = {
      allowFormulas: key.allowFormulas,
      userEntered,
      ...(mutationsFor ? { mutationsFor } : {}),
    };
    const given = mutationsFor ? [] : (ops as Mutation[]);
    const result = await writeMutations(spreadsheet, tab.sourceSheetId, given, options, 'batch');
    res.status(200).json({ appended: result.appended, updated: result.updated, deleted: result.deleted });
  };

  // path-to-regexp v8: a literal colon must be escaped, else `:batchUpdate` would be a parameter.
  routes.post(
    '/v1/sheets/:sheetId/rows\\:batchUpdate',
    { access: 'read_write', resource: 'tab' },
    batchUpdate,
  );
  routes.post('/v1/sheets/:sheetId/rows/batchUpdate', { access: 'read_write', resource: 'tab' }, batchUpdate);
}
