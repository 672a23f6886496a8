/**
 * The target of `npm run bench:mcp` (bench/mcp.ts): the real SheetPort service in its own process, on a temp data
 * dir of its own, serving `/api`, `/v1` and `/mcp` on one loopback listener. Generates the 5,000-row "Orders"
 * workbook of bench/data.ts, registers it and an Enterprise read key with limits far above any load (so the rate
 * limiter counts every call and refuses none), starts the service as `sheetport serve` does, reads the tab once
 * so the workbook is in the in-memory copy, and reports the URL, paths and key to the parent over IPC. The
 * parent sets SHEETPORT_MCP_MAX_ROWS in this process's environment, as a user would. Answers `cpu?` with this
 * process's CPU time, so the parent can count server CPU per call; BENCH_CPU_PROFILE=<file> writes a profile of
 * the serving phase. The temp dir is removed on exit.
 */
// First, as `sheetport serve` does: V8's heap sizing before the server's modules load.
import '../server/small-footprint-first.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../server/index.ts';
import { prepareDataDir } from './bench-data-dir.ts';
import { answerCpuQuestions, profileServing } from './cpu-profile.ts';
import { generateRows, SEARCH, SMALL_ROWS, SORT, TAB, writeOrdersWorkbook } from './data.ts';
import type { ChildMessage } from './protocol.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-bench-mcp-'));
let cleanup = async (): Promise<void> => {
  rmSync(dataDir, { recursive: true, force: true });
};

const send = (message: ChildMessage) => process.send?.(message);

async function main(): Promise<void> {
  const notes: string[] = [];
  const file = path.join(dataDir, 'orders-5k.xlsx');
  await writeOrdersWorkbook(file, generateRows(SMALL_ROWS));

  const {
    userKeys: [userKey],
    key,
  } = await prepareDataDir(dataDir, [file], 'bench-mcp');

  const service = await startServer({
    dataDir,
    port: 0,
    host: '127.0.0.1',
    log: (m, e) => console.error(m, e),
  });
  cleanup = async () => {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  notes.push(`MCP query_rows returns at most ${service.context.mcp.maxRows} rows a call`);

  const headers = { authorization: `Bearer ${key}` };
  const query = `search=${encodeURIComponent(SEARCH)}&sort=${encodeURIComponent(SORT)}&limit=100`;
  // The /v1 tab id, as list_sheets gives it to an agent.
  const listed = await fetch(`${service.url}/v1/spreadsheets`, { headers });
  const body = (await listed.json()) as { data: { sheets: { sheet_id: string; name: string }[] }[] };
  const sheetId = body.data[0]?.sheets.find((s) => s.name === TAB)?.sheet_id;
  if (!sheetId) throw new Error(`no ${TAB} tab in /v1/spreadsheets: ${JSON.stringify(body).slice(0, 300)}`);

  const targets = {
    api: `/api/spreadsheets/${userKey}/${encodeURIComponent(TAB)}?${query}`,
    // Exactly the request query_rows makes of /v1 (server/mcp/tools-read.ts), row numbers included.
    v1: `/v1/sheets/${encodeURIComponent(sheetId)}/rows?${query}&row_numbers=true`,
    mcp: '/mcp',
    // Not a path: the tab's /v1 id, query_rows's sheet_id.
    sheetId,
  };
  // Read the workbook into the in-memory copy and build the search and sort caches before any load.
  const warm = await fetch(service.url + targets.api, { headers });
  if (warm.status !== 200)
    throw new Error(`warm-up: HTTP ${warm.status} ${(await warm.text()).slice(0, 300)}`);
  await warm.arrayBuffer();

  // BENCH_CPU_PROFILE=<file>: profile only the serving phase (not the workbook generation and first read).
  cleanup = await profileServing(cleanup, notes);

  answerCpuQuestions(send);
  send({ type: 'ready', url: service.url, targets, headers, notes });
}

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  cleanup().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);

main().catch((err: unknown) => {
  send({ type: 'failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  stop();
});
