/**
 * `npm run bench:mcp`: tool calls per second of the MCP server over Streamable HTTP, beside the same query over
 * the HTTP API, on loopback. One 5,000-row "Orders" tab (bench/data.ts), one query (search=Region:north,
 * sort=-Total, limit=100: 100 of about 1,700 matching rows), three ways:
 *
 *   (1) GET /api/spreadsheets/{userKey}/Orders?search=...&sort=...&limit=100
 *   (2) GET /v1/sheets/{sheetId}/rows?...&row_numbers=true   (exactly the request query_rows makes of /v1)
 *   (3) tools/call query_rows {sheet_id, search, sort, limit: 100} over Streamable HTTP (POST /mcp), with the
 *       official SDK's Client and StreamableHTTPClientTransport, each worker its own session
 *
 * The service runs in its own child process (bench/mcp-server.ts, SHEETPORT_MCP_MAX_ROWS=100); the load runs
 * here: N workers per way, each calling in a loop (bench/closed-loop.ts; plain `fetch` for (1) and (2), the SDK
 * client for (3)). Before any timing it checks that the three answers carry the same rows (the MCP answer's
 * rows and row numbers equal /v1's, its values equal /api's) and fails otherwise. Then a warm-up of each way,
 * then rounds in alternating order (1 2 3, 3 2 1, ...) so the machine's drift hits every way alike; the ratio
 * MCP / /api is the median of the per-round ratios, of calls per second and of server CPU per call (the steadier
 * of the two on a shared machine). Besides calls per second and latency, it reports the bytes of one answer and
 * the CPU time per call of the server process and of this (client) process.
 *
 * Environment: BENCH_DURATION (s per way per round, default 3), BENCH_ROUNDS (default 8), BENCH_WARMUP (s per
 * way, default 2), BENCH_CONNECTIONS (workers per way, default 10; at most 32, the sessions one key may hold),
 * BENCH_SETUP_TIMEOUT (s, default 300), BENCH_JSON (file to write results to), BENCH_CPU_PROFILE (file: the
 * server's CPU profile), BENCH_ONLY (api, v1 or mcp: load that way alone, e.g. to profile it; no ratios). Exit
 * code 1 when the answers differ or a call failed.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { closedLoop, type LoopResult, median, quantile } from './closed-loop.ts';
import { SEARCH, SORT } from './data.ts';
import { askTarget, envNumber, startTarget, stopTarget, type Target } from './targets.ts';

const DURATION = envNumber('BENCH_DURATION', 3);
const ROUNDS = Math.round(envNumber('BENCH_ROUNDS', 8));
const WARMUP = envNumber('BENCH_WARMUP', 2);
const CONNECTIONS = Math.round(envNumber('BENCH_CONNECTIONS', 10));
const SETUP_TIMEOUT_MS = envNumber('BENCH_SETUP_TIMEOUT', 300) * 1000;
const ROWS = 100;
/** Sessions one key may hold open (server/http/mcp.ts); more would close the first workers' sessions. */
const MAX_SESSIONS = 32;
const ONLY = onlyWay(process.env.BENCH_ONLY);

/** The server process's CPU time so far (µs). */
const serverCpu = (target: Target) => askTarget(target, 'cpu');

function clientCpu(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** The query_rows arguments that ask what (1) and (2) ask. */
const queryArgs = (sheetId: string) => ({ sheet_id: sheetId, search: SEARCH, sort: SORT, limit: ROWS });

/** An MCP client of its own session, as an agent's: connect, list the tools once, then call. */
async function mcpClient(target: Target, fetchImpl?: typeof fetch): Promise<Client> {
  const client = new Client({ name: 'sheetport-bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(target.ready.url + target.ready.targets.mcp!), {
    requestInit: { headers: target.ready.headers },
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  await client.connect(transport);
  await client.listTools();
  return client;
}

async function callQueryRows(client: Client, sheetId: string): Promise<CallToolResult> {
  const result = (await client.callTool({
    name: 'query_rows',
    arguments: queryArgs(sheetId),
  })) as CallToolResult;
  if (result.isError) throw new Error(`query_rows failed: ${JSON.stringify(result.structuredContent)}`);
  return result;
}

async function getOk(target: Target, path: string): Promise<{ text: string; total: string | null }> {
  const res = await fetch(target.ready.url + path, { headers: target.ready.headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return { text, total: res.headers.get('x-total-count') };
}

interface Answers {
  bytes: Record<Way, number>;
  total: number;
}

/**
 * One answer of each way, compared: the MCP rows (row number and values) must equal /v1's, and their values
 * /api's. Also the bytes of each answer's body (for MCP, the body of the POST /mcp answer: its SSE event).
 */
async function checkSameRows(target: Target): Promise<Answers> {
  const sheetId = target.ready.targets.sheetId!;
  const api = await getOk(target, target.ready.targets.api!);
  const v1 = await getOk(target, target.ready.targets.v1!);
  let mcpBytes = 0;
  // Counts the bytes of the POST answers (a tool call's is the one POST made while `counting`).
  let counting = false;
  const countingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (!counting || init?.method !== 'POST') return res;
    const body = await res.arrayBuffer();
    mcpBytes += body.byteLength;
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const client = await mcpClient(target, countingFetch);
  counting = true;
  const tool = await callQueryRows(client, sheetId);
  counting = false;
  await client.close();

  const apiRows = JSON.parse(api.text) as Record<string, unknown>[];
  const v1Body = JSON.parse(v1.text) as {
    data: Record<string, unknown>[];
    meta: { rows: number[]; total: number };
  };
  const mcp = tool.structuredContent as {
    rows: { row: number; values: Record<string, unknown> }[];
    total: number;
  };
  const v1Rows = v1Body.data.map((values, i) => ({ row: v1Body.meta.rows[i], values }));
  if (mcp.rows.length !== ROWS) throw new Error(`query_rows returned ${mcp.rows.length} rows, not ${ROWS}`);
  if (!isDeepStrictEqual(mcp.rows, v1Rows)) throw new Error('query_rows and /v1 return different rows');
  if (
    !isDeepStrictEqual(
      mcp.rows.map((r) => r.values),
      apiRows,
    )
  ) {
    throw new Error('query_rows and /api return different rows');
  }
  if (mcp.total !== v1Body.meta.total || String(mcp.total) !== api.total) {
    throw new Error(`totals differ: query_rows ${mcp.total}, /v1 ${v1Body.meta.total}, /api ${api.total}`);
  }
  return {
    bytes: { api: Buffer.byteLength(api.text), v1: Buffer.byteLength(v1.text), mcp: mcpBytes },
    total: mcp.total,
  };
}

type Way = 'api' | 'v1' | 'mcp';

function onlyWay(raw: string | undefined): Way | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'api' || raw === 'v1' || raw === 'mcp') return raw;
  throw new Error(`BENCH_ONLY must be api, v1 or mcp, got "${raw}"`);
}
const LABELS: Record<Way, string> = {
  api: '(1) GET /api/spreadsheets/{userKey}/Orders',
  v1: '(2) GET /v1/sheets/{sheetId}/rows',
  mcp: '(3) MCP tools/call query_rows, Streamable HTTP',
};

interface Run {
  way: Way;
  round: number;
  loop: LoopResult;
  serverMicros: number;
  clientMicros: number;
}

const callsPerSecond = (r: Run) => r.loop.calls / r.loop.seconds;

async function measure(
  target: Target,
  way: Way,
  workers: (() => Promise<void>)[],
  round: number,
): Promise<Run> {
  const server = await serverCpu(target);
  const client = clientCpu();
  const loop = await closedLoop(workers, DURATION);
  const run = {
    way,
    round,
    loop,
    serverMicros: ((await serverCpu(target)) - server) / Math.max(1, loop.calls),
    clientMicros: (clientCpu() - client) / Math.max(1, loop.calls),
  };
  console.log(
    `round ${round} ${LABELS[way]}: ${Math.round(callsPerSecond(run))} calls/s, ` +
      `server ${Math.round(run.serverMicros)} µs CPU/call${loop.errors ? `, ${loop.errors} errors: ${loop.firstError}` : ''}`,
  );
  return run;
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

interface Summary {
  way: Way;
  callsPerSecond: number;
  p50: number;
  p99: number;
  bytes: number;
  serverMicros: number;
  clientMicros: number;
  errors: number;
}

/** A way over all its rounds: calls/s as the median round, latency over every call, CPU per call the median. */
function summarize(way: Way, runs: Run[], bytes: number): Summary {
  const mine = runs.filter((r) => r.way === way);
  const latencies = mine.flatMap((r) => r.loop.latencies);
  return {
    way,
    callsPerSecond: median(mine.map(callsPerSecond)),
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    bytes,
    serverMicros: median(mine.map((r) => r.serverMicros)),
    clientMicros: median(mine.map((r) => r.clientMicros)),
    errors: mine.reduce((n, r) => n + r.loop.errors, 0),
  };
}

function table(summaries: Summary[]): string {
  const head = [
    'way',
    'calls/s',
    'p50 ms',
    'p99 ms',
    'bytes/answer',
    'server µs/call',
    'client µs/call',
    'errors',
  ];
  const lines = summaries.map((s) => [
    LABELS[s.way],
    fmt(s.callsPerSecond),
    fmt(s.p50, 1),
    fmt(s.p99, 1),
    fmt(s.bytes),
    fmt(s.serverMicros),
    fmt(s.clientMicros),
    String(s.errors),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [row(head), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(row)].join('\n');
}

async function main(): Promise<number> {
  if (CONNECTIONS > MAX_SESSIONS) throw new Error(`BENCH_CONNECTIONS must be at most ${MAX_SESSIONS}`);
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  console.log(`SheetPort MCP benchmark ${new Date().toISOString()}`);
  console.log(
    `Node ${process.version}, ${os.availableParallelism()} cores (${cpu}), ${os.platform()} ${os.release()}`,
  );
  console.log(
    `${CONNECTIONS} workers per way, ${WARMUP} s warm-up per way, ${ROUNDS} rounds of ${DURATION} s per way, loopback\n`,
  );

  const target = await startTarget('./mcp-server.ts', SETUP_TIMEOUT_MS, {
    SHEETPORT_MCP_MAX_ROWS: String(ROWS),
  });
  const clients: Client[] = [];
  try {
    const notes = [...(target.ready.notes ?? [])];
    const answers = await checkSameRows(target);
    notes.push(
      `the three ways return the same ${ROWS} rows of ${answers.total} matching (checked before timing)`,
    );

    const sheetId = target.ready.targets.sheetId!;
    const httpWorker = (path: string) => async () => {
      await getOk(target, path);
    };
    for (let i = 0; i < CONNECTIONS; i++) clients.push(await mcpClient(target));
    const workers: Record<Way, (() => Promise<void>)[]> = {
      api: clients.map(() => httpWorker(target.ready.targets.api!)),
      v1: clients.map(() => httpWorker(target.ready.targets.v1!)),
      mcp: clients.map((client) => async () => {
        await callQueryRows(client, sheetId);
      }),
    };
    const ways: Way[] = ONLY ? [ONLY] : ['api', 'v1', 'mcp'];
    for (const way of ways) {
      process.stdout.write(`warm-up ${LABELS[way]} ${WARMUP} s ... `);
      const loop = await closedLoop(workers[way], WARMUP);
      console.log(`${Math.round(loop.calls / loop.seconds)} calls/s`);
    }
    const runs: Run[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? ways : [...ways].reverse();
      for (const way of order) runs.push(await measure(target, way, workers[way], round));
    }

    const summaries = ways.map((way) => summarize(way, runs, answers.bytes[way]));
    // Per-round ratios to (1), their median: the ways of one round ran seconds apart, so drift mostly cancels.
    const ratioOf = (way: Way, measureOf: (r: Run) => number) =>
      median(
        Array.from({ length: ROUNDS }, (_, i) => {
          const inRound = (w: Way) => measureOf(runs.find((r) => r.round === i + 1 && r.way === w)!);
          return inRound(way) / inRound('api');
        }),
      );
    const mcpRatio = ONLY ? null : ratioOf('mcp', callsPerSecond);
    const v1Ratio = ONLY ? null : ratioOf('v1', callsPerSecond);
    const mcpCpuRatio = ONLY ? null : ratioOf('mcp', (r) => r.serverMicros);
    console.log(`\n${table(summaries)}\n`);
    for (const note of notes) console.log(`note: ${note}`);
    if (mcpRatio !== null && v1Ratio !== null && mcpCpuRatio !== null) {
      console.log(
        `MCP / /api = ${mcpRatio.toFixed(2)} of the calls per second, /v1 / /api = ${v1Ratio.toFixed(2)} ` +
          `(medians of ${ROUNDS} per-round ratios)`,
      );
      console.log(
        `MCP / /api = ${mcpCpuRatio.toFixed(1)} × the server CPU per call (median of ${ROUNDS} rounds)`,
      );
    }
    const errors = summaries.reduce((n, s) => n + s.errors, 0);
    if (errors > 0) console.log(`FAIL ${errors} calls failed`);

    const out = process.env.BENCH_JSON;
    if (out) {
      const summary = {
        date: new Date().toISOString(),
        node: process.version,
        cores: os.availableParallelism(),
        cpu,
        workers: CONNECTIONS,
        rounds: ROUNDS,
        duration: DURATION,
        warmup: WARMUP,
        ways: summaries,
        rounds_detail: runs.map((r) => ({
          way: r.way,
          round: r.round,
          callsPerSecond: callsPerSecond(r),
          serverMicros: r.serverMicros,
          clientMicros: r.clientMicros,
          errors: r.loop.errors,
        })),
        mcpOverApi: mcpRatio,
        v1OverApi: v1Ratio,
        mcpOverApiServerCpu: mcpCpuRatio,
        notes,
        passed: errors === 0,
      };
      writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
    }
    return errors > 0 ? 1 : 0;
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await stopTarget(target);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  },
);
