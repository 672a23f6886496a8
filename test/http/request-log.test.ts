import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../server/index.ts';
import { LOGS_DIR } from '../../server/logs/request-log.ts';
import { csvServices } from '../helpers/csv-services.ts';
import { sqliteOf } from '../helpers/sqlite-of.ts';

const services = csvServices('sheetport-reqlog-');
afterEach(services.stopAll);

interface LogLine {
  level: string;
  time: string;
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  key_id: string | null;
  err?: { type: string; message: string; stack: string };
}

interface ErrorBody {
  error: { code: string; request_id: string };
}

/** A real service (the same startServer `sheetport serve` runs) over a temp data dir with one CSV connected. */
async function start(requestLog: { maxBytes?: number; keepFiles?: number } = {}) {
  const serverLog: string[] = [];
  const { service, dataDir, connection } = await services.start({
    requestLog,
    log: (message, err) => serverLog.push(`${message} ${err instanceof Error ? err.message : ''}`),
  });
  const { record, key } = await service.context.keys.create({ name: 't', scope: 'read_write', plan: 'pro' });
  const get = (p: string) => fetch(service.url + p, { headers: { authorization: `Bearer ${key}` } });
  return { service, dataDir, connection, keyId: record.id, key, get, serverLog };
}

async function logFiles(dataDir: string): Promise<string[]> {
  const dir = path.join(dataDir, LOGS_DIR);
  return (await readdir(dir)).filter((f) => f.endsWith('.log')).map((f) => path.join(dir, f));
}

/** Every log file's text, as far as it is written now (a file rotated away meanwhile is skipped). */
async function loggedText(dataDir: string): Promise<string> {
  let text = '';
  for (const f of await logFiles(dataDir)) text += await readFile(f, 'utf8').catch(() => '');
  return text;
}

async function readLines(dataDir: string): Promise<{ text: string; lines: LogLine[] }> {
  let text = '';
  for (const f of await logFiles(dataDir)) text += await readFile(f, 'utf8');
  const lines = text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogLine);
  return { text, lines };
}

describe('request log', () => {
  it('writes one JSON line per request with id, status, duration and key id, never the key', async () => {
    const { service, dataDir, connection, keyId, key, get } = await start();
    const ok = await get(`/api/spreadsheets/${connection.userKey}/team?limit=1&api_key=${key}&token=abc`);
    expect(ok.status).toBe(200);
    const missing = await get('/no/such/route');
    expect(missing.status).toBe(404);
    const missingId = ((await missing.json()) as ErrorBody).error.request_id;
    const anonymous = await fetch(`${service.url}/v1/spreadsheets`);
    expect(anonymous.status).toBe(401);
    await service.stop();

    const { text, lines } = await readLines(dataDir);
    expect(lines).toHaveLength(3);
    const [first, second, third] = lines as [LogLine, LogLine, LogLine];
    expect(first).toMatchObject({
      level: 'info',
      method: 'GET',
      status: 200,
      key_id: keyId,
      request_id: ok.headers.get('x-request-id'),
    });
    expect(first.path).toBe(
      `/api/spreadsheets/${connection.userKey}/team?limit=1&api_key=[redacted]&token=[redacted]`,
    );
    expect(first.duration_ms).toBeGreaterThan(0);
    expect(Date.parse(first.time)).not.toBeNaN();
    // The request id an error answer shows finds its line.
    expect(second).toMatchObject({ request_id: missingId, status: 404, path: '/no/such/route' });
    expect(third).toMatchObject({ status: 401, key_id: null });
    // The key appears nowhere: not from the Authorization header, not from the URL.
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(3));
    expect(text.toLowerCase()).not.toContain('bearer');
  });

  it('logs a 500 with its cause, found by the request id the client got', async () => {
    const { service, dataDir, connection, get, serverLog } = await start();
    // Take the change log's table away under the running service: the change feed then fails inside.
    sqliteOf(service.context).exec('ALTER TABLE change_log RENAME TO change_log_away');
    const res = await get(
      `/v1/spreadsheets/${connection.spreadsheetId}/rows?sheet=team&updated_since=2020-01-01T00:00:00Z`,
    );
    expect(res.status).toBe(500);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe('internal_error');
    expect(JSON.stringify(body)).not.toContain('change_log'); // the cause stays inside
    sqliteOf(service.context).exec('ALTER TABLE change_log_away RENAME TO change_log');
    await service.stop();

    const { lines } = await readLines(dataDir);
    const line = lines.find((l) => l.request_id === body.error.request_id);
    expect(line).toMatchObject({ level: 'error', status: 500 });
    expect(line?.err?.message).toMatch(/no such table: change_log/);
    expect(line?.err?.stack).toBeTruthy();
    // The server log names the request too.
    expect(serverLog.some((m) => m.includes(body.error.request_id) && /no such table/.test(m))).toBe(true);
  });

  it('rotates at the configured size, keeps the configured number of files, and makes them 0600', async () => {
    const { service, dataDir, connection, get } = await start({ maxBytes: 600, keepFiles: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await get(`/api/spreadsheets/${connection.userKey}/team?offset=${i}`);
      ids.push(res.headers.get('x-request-id')!);
      // Each line on disk before the next request: lines that arrive while a write is under way go out together
      // with the next write (one write may then cross the limit by several lines, as many as a busy machine
      // let pile up), and this test is about the size at which a file rotates.
      await expect.poll(() => loggedText(dataDir), { timeout: 5000, interval: 5 }).toContain(ids.at(-1));
    }
    await service.stop();
    // Old files are removed after a rotation, asynchronously (later on a busy machine): wait for it.
    await expect.poll(async () => (await logFiles(dataDir)).length, { timeout: 5000, interval: 50 }).toBe(3);

    const files = await logFiles(dataDir);
    const numbers = files.map((f) => Number(/requests\.(\d+)\.log$/.exec(f)?.[1])).sort((a, b) => a - b);
    expect(files.length).toBe(3); // the current file and two rotated ones, no fewer
    expect(numbers.at(-1)).toBeGreaterThan(3); // it did rotate many times
    for (const f of files) {
      expect((await stat(f)).mode & 0o777).toBe(0o600);
      // A write that crosses the limit finishes the file (lines that arrived meanwhile go with it).
      expect((await stat(f)).size).toBeLessThan(600 + 800);
    }
    expect((await stat(path.join(dataDir, LOGS_DIR))).mode & 0o777).toBe(0o700);
    // The newest requests are in the kept files.
    const { lines } = await readLines(dataDir);
    expect(lines.map((l) => l.request_id)).toContain(ids.at(-1));
  });

  it('continues numbering after a restart instead of overwriting', async () => {
    const first = await start();
    await first.get('/openapi.json');
    await first.service.stop();
    const again = await startServer({ dataDir: first.dataDir, port: 0, host: '127.0.0.1', log: () => {} });
    services.track(again);
    await fetch(`${again.url}/openapi.json`);
    await again.stop();
    const { lines } = await readLines(first.dataDir);
    expect(lines.filter((l) => l.path === '/openapi.json')).toHaveLength(2);
  });
});
