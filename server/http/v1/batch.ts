import type { Request, Response } from 'express';
import { parsePublicSheetId } from '../../connections/sheet-id.ts';
import { AppError, isAppError } from '../../errors.ts';
import { quantity } from '../../lib/quantity.ts';
import type { ConnectionRecord } from '../../repositories/connections.ts';
import type { CellInput, Mutation, TabSnapshot } from '../../sources/source.ts';
import { authorize } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import type { RouteTable } from '../route-table.ts';
import { parseInputMode, parseRowObject } from '../row-input.ts';

export const MAX_MUTATIONS = 500;

/** The keys each op takes, all required; anything else is refused so a typo (`"vals"`) is not silently dropped. */
const KEYS: Record<Mutation['op'], readonly string[]> = {
  append: ['op', 'values'],
  update: ['op', 'row', 'values'],
  delete: ['op', 'row'],
};

const isOp = (op: unknown): op is Mutation['op'] => typeof op === 'string' && Object.hasOwn(KEYS, op);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An AppError about mutation `index`: the message starts with `mutations[index]: `, details carry `index`. */
function atIndex(
  index: number,
  code: AppError['code'],
  message: string,
  details: Record<string, unknown> = {},
): AppError {
  return new AppError(code, `mutations[${index}]: ${message}`, { ...details, index });
}

/** A client's value for a message, kept short (`5`, `"5"`, `null`, `an object`). */
function shown(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (typeof v === 'object' && v !== null) return Array.isArray(v) ? 'an array' : 'an object';
  return String(v);
}

function parseRow(raw: unknown, index: number): number {
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 1) {
    throw atIndex(index, 'invalid_body', `"row" must be a positive integer, got ${shown(raw)}.`);
  }
  return raw;
}

/** Append values must hold a value: an all-empty row after the last row would not be a row. */
function appendValues(raw: unknown, index: number): Record<string, CellInput> {
  const values = parseValues(raw, index);
  if (!Object.values(values).some((v) => v !== null && v !== '')) {
    throw atIndex(index, 'invalid_body', 'an appended row needs at least one non-empty value.');
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
    throw atIndex(index, 'invalid_body', '"values" names no field.');
  }
  return values;
}

function parseMutation(raw: unknown, index: number): Mutation {
  if (!isPlainObject(raw)) throw atIndex(index, 'invalid_body', 'each mutation must be a JSON object.');
  if (!isOp(raw.op)) {
    throw atIndex(
      index,
      'invalid_body',
      `"op" must be "append", "update" or "delete", got ${shown(raw.op)}.`,
    );
  }
  const op = raw.op;
  const allowed = KEYS[op];
  const extra = Object.keys(raw).find((k) => !allowed.includes(k));
  if (extra !== undefined) {
    throw atIndex(index, 'invalid_body', `"${op}" takes ${allowed.join(', ')}; unexpected key "${extra}".`);
  }
  const missing = allowed.find((k) => !Object.hasOwn(raw, k));
  if (missing !== undefined) throw atIndex(index, 'invalid_body', `"${op}" needs "${missing}".`);
  switch (op) {
    case 'append':
      return { op, values: appendValues(raw.values, index) };
    case 'update':
      return { op, row: parseRow(raw.row, index), values: parseValues(raw.values, index) };
    case 'delete':
      return { op, row: parseRow(raw.row, index) };
  }
}

/**
 * `{"mutations":[...]}` with 1..500 well-formed mutations. Only the shape is checked here; field names and row
 * numbers are checked by the source against the tab as it is when the write runs (and before anything is written).
 */
export function parseBatchBody(body: unknown): Mutation[] {
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

/**
 * The source reports a problem with one mutation as an error carrying its `index` (and, for a missing row,
 * `row` and `row_count`). In a batch a row beyond the end is a bad request body (400 invalid_body), not a
 * missing resource; every message is prefixed with the mutation's position.
 */
function batchError(e: unknown): unknown {
  if (!isAppError(e) || typeof e.details.index !== 'number') return e;
  const { index, ...details } = e.details;
  if (e.code === 'row_not_found') {
    const count =
      typeof details.row_count === 'number' ? ` (the tab has ${quantity(details.row_count, 'row')})` : '';
    return atIndex(index, 'invalid_body', `row ${String(details.row)} does not exist${count}.`, details);
  }
  return atIndex(index, e.code, e.message.charAt(0).toLowerCase() + e.message.slice(1), details);
}

/** `POST /v1/sheets/{sheetId}/rows:batchUpdate` (and `/rows/batchUpdate`): up to 500 mutations, all or none. */
export function mountBatchRoutes(routes: RouteTable, deps: AppDeps): void {
  const resolve = async (
    req: Request,
    res: Response,
  ): Promise<{ connection: ConnectionRecord; tab: TabSnapshot; allowFormulas: boolean }> => {
    const sheetId = String(req.params.sheetId);
    const parsed = parsePublicSheetId(sheetId);
    const connection = parsed && (await deps.connections.getBySpreadsheetId(parsed.spreadsheetId));
    if (!parsed || !connection) throw new AppError('sheet_not_found', `No tab with sheet_id "${sheetId}".`);
    const key = authorize(res, connection, 'write');
    const tab = (await deps.replica.get(connection)).bySourceSheetId.get(parsed.sourceSheetId);
    if (!tab) throw new AppError('sheet_not_found', `No tab with sheet_id "${sheetId}".`);
    return { connection, tab, allowFormulas: key.allowFormulas };
  };

  const batchUpdate = async (req: Request, res: Response) => {
    const { connection, tab, allowFormulas } = await resolve(req, res);
    const mutations = parseBatchBody(req.body);
    const userEntered = parseInputMode(req.query.input);
    try {
      const result = await deps.replica.write(connection, tab.sourceSheetId, mutations, {
        allowFormulas,
        userEntered,
      });
      res.status(200).json({ appended: result.appended, updated: result.updated, deleted: result.deleted });
    } catch (e) {
      throw batchError(e);
    }
  };

  // path-to-regexp v8: a literal colon must be escaped, else `:batchUpdate` would be a parameter.
  routes.post('/v1/sheets/:sheetId/rows\\:batchUpdate', 'write', batchUpdate);
  routes.post('/v1/sheets/:sheetId/rows/batchUpdate', 'write', batchUpdate);
}
