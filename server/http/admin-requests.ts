/**
 * `/admin/requests`: the newest lines of the request log (`<data dir>/logs/requests.<n>.log`), newest first,
 * so a `request_id` from an error answer can be found, filtered by status class, key and path, with or without
 * the dashboard's own requests (`/admin`, `/ui`). Only the tail of the newest files is read: the log is for
 * recent requests, and reading it must stay cheap however large the files grew.
 */
import { open, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Request } from 'express';
import { AppError } from '../errors.ts';
import { LOGS_DIR, REQUEST_LOG_STEM, type RequestLogEntry } from '../logs/request-log.ts';
import type { AppDeps } from './deps.ts';
import { limitParameter } from './paging.ts';
import type { RouteTable } from './route-table.ts';

const LIMITS = { default: 100, max: 500 };
/** Bytes read from the end of each file, newest file first, until enough lines are found. */
const TAIL_BYTES = 1024 * 1024;
const FILE_NAME = new RegExp(`^${REQUEST_LOG_STEM}\\.(\\d+)\\.log$`);

/** A request log line as the dashboard shows it: the entry as written, with its time, and never its error. */
export type RequestLine = Omit<RequestLogEntry, 'aborted' | 'err' | 'tool'> & {
  time: string | null;
  aborted: boolean;
  /** The MCP tool whose call the request was; null for a plain HTTP request. */
  tool: string | null;
};

/** Which lines to keep; every member left out keeps every line. */
export interface RequestLogFilter {
  requestId?: string;
  /** A status class (`2xx` ... `5xx`) or one status (`404`). */
  status?: string;
  keyId?: string;
  /** Text the path contains. */
  path?: string;
  /** Leave out the dashboard's own requests: `/admin` and `/ui` and what is under them. */
  hideDashboard?: boolean;
}

const STATUS_FILTER = /^[1-5](?:xx|\d\d)$/;
const DASHBOARD_PATH = /^\/(?:admin|ui)(?:[/?]|$)/;

function matches(line: RequestLine, f: RequestLogFilter): boolean {
  if (f.requestId !== undefined && line.request_id !== f.requestId) return false;
  if (f.keyId !== undefined && line.key_id !== f.keyId) return false;
  if (f.path !== undefined && !line.path.includes(f.path)) return false;
  if (f.hideDashboard && DASHBOARD_PATH.test(line.path)) return false;
  if (f.status !== undefined) {
    const code = String(line.status);
    if (f.status.endsWith('xx') ? code[0] !== f.status[0] : code !== f.status) return false;
  }
  return true;
}

async function newestFirstFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return []; // No log yet (or turned off).
  }
  return names
    .map((name) => ({ name, n: Number(FILE_NAME.exec(name)?.[1]) }))
    .filter((f) => Number.isInteger(f.n))
    .sort((a, b) => b.n - a.n)
    .map((f) => path.join(dir, f.name));
}

async function tailLines(file: string): Promise<string[]> {
  const handle = await open(file, 'r').catch(() => null);
  if (!handle) return [];
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8').split('\n');
    // A tail that starts mid-file starts mid-line: that first piece is not a whole line.
    if (start > 0) lines.shift();
    return lines.filter((l) => l.trim() !== '');
  } finally {
    await handle.close();
  }
}

function parseLine(line: string): RequestLine | null {
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    if (typeof v.request_id !== 'string' || typeof v.status !== 'number') return null;
    return {
      time: typeof v.time === 'string' ? v.time : null,
      request_id: v.request_id,
      method: String(v.method ?? ''),
      path: String(v.path ?? ''),
      status: v.status,
      duration_ms: typeof v.duration_ms === 'number' ? v.duration_ms : 0,
      key_id: typeof v.key_id === 'string' ? v.key_id : null,
      aborted: v.aborted === true,
      tool: typeof v.tool === 'string' ? v.tool : null,
    };
  } catch {
    return null; // A line cut by a crash mid-write.
  }
}

/** The newest `limit` lines (newest first) that pass the filter. */
export async function recentRequests(
  dataDir: string,
  limit: number,
  filter: RequestLogFilter = {},
): Promise<RequestLine[]> {
  const found: RequestLine[] = [];
  for (const file of await newestFirstFiles(path.join(dataDir, LOGS_DIR))) {
    const lines = await tailLines(file);
    for (let i = lines.length - 1; i >= 0 && found.length < limit; i--) {
      const entry = parseLine(lines[i]!);
      if (entry && matches(entry, filter)) found.push(entry);
    }
    if (found.length >= limit) break;
  }
  return found;
}

/** A text parameter, trimmed; undefined when absent or empty. */
function textOf(req: Request, name: string): string | undefined {
  const raw = req.query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') {
    throw new AppError('invalid_parameter', `Parameter "${name}" must be given once.`, { parameter: name });
  }
  return raw.trim() === '' ? undefined : raw.trim();
}

function filterOf(req: Request): RequestLogFilter {
  const status = textOf(req, 'status')?.toLowerCase();
  if (status !== undefined && !STATUS_FILTER.test(status)) {
    throw new AppError(
      'invalid_parameter',
      'Parameter "status" must be a status class (2xx, 3xx, 4xx, 5xx) or a status such as 404.',
      { parameter: 'status' },
    );
  }
  const hide = textOf(req, 'hide_dashboard');
  if (hide !== undefined && hide !== 'true' && hide !== 'false') {
    throw new AppError('invalid_parameter', 'Parameter "hide_dashboard" must be true or false.', {
      parameter: 'hide_dashboard',
    });
  }
  const requestId = textOf(req, 'request_id');
  const keyId = textOf(req, 'key_id');
  const path = textOf(req, 'path');
  return {
    ...(requestId !== undefined ? { requestId } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(keyId !== undefined ? { keyId } : {}),
    ...(path !== undefined ? { path } : {}),
    hideDashboard: hide === 'true',
  };
}

export function mountAdminRequestRoutes(routes: RouteTable, deps: Pick<AppDeps, 'dataDir'>): void {
  routes.get('/admin/requests', 'admin', async (req, res) => {
    const limit = limitParameter(req, LIMITS);
    res.json({ data: await recentRequests(deps.dataDir, limit, filterOf(req)) });
  });
}
