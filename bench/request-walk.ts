/**
 * Which of the server's files a request passes: runs `sheetport serve` on a workbook written by openpyxl, and
 * reads V8's precise coverage over the inspector around three requests:
 *   1. an append to the .xlsx, until it is answered (its webhook is queued before the answer);
 *   2. a save made by another program (openpyxl), until the webhook's delivery reaches a receiver;
 *   3. a listing with search + sort + csv;
 *   4. an MCP `query_rows` (tools/call over Streamable HTTP, the SDK's client, a session opened beforehand).
 * Only the process's main thread is seen (the parser's worker thread is not). Each walk is warmed up first, so
 * what is counted is the steady path, not first-use setup; but no answer comes from a cache: each listing and
 * each query_rows searches for a term not asked before. Each walk is taken three times and only the files all
 * three passed are counted, so a background timer firing in one window (the usage flush, the follower) is left
 * out. Used for docs/architecture.md's walks; it runs on any checkout of the project, so a tree can be measured
 * before and after a change with the same script.
 *
 *   node bench/request-walk.ts [--files]
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'bin', 'sheetport.js');
const PYTHON = '/usr/bin/python3';
const listFiles = process.argv.includes('--files');

interface Coverage {
  result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
}

class Inspector {
  readonly #socket: WebSocket;
  #next = 1;
  readonly #pending = new Map<number, (value: unknown) => void>();

  constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
      if (message.id !== undefined) this.#pending.get(message.id)?.(message.result);
    });
  }

  static async open(url: string): Promise<Inspector> {
    const socket = new WebSocket(url);
    await new Promise((ok, fail) => {
      socket.addEventListener('open', ok);
      socket.addEventListener('error', fail);
    });
    return new Inspector(socket);
  }

  send<T>(method: string, params: object = {}): Promise<T> {
    const id = this.#next++;
    this.#socket.send(JSON.stringify({ id, method, params }));
    return new Promise((ok) => this.#pending.set(id, ok as (value: unknown) => void));
  }

  close(): void {
    this.#socket.close();
  }
}

function cli(dataDir: string, ...args: string[]): Record<string, unknown> {
  const out = execFileSync(process.execPath, [CLI, '--data-dir', dataDir, '--json', ...args], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as Record<string, unknown>;
}

function python(script: string): void {
  execFileSync(PYTHON, ['-c', script], { stdio: 'inherit' });
}

function writeWorkbook(path: string): void {
  python(
    `import openpyxl\nwb=openpyxl.Workbook(); ws=wb.active; ws.title='People'; ws.append(['Name','Age','City'])\n` +
      `for i in range(200): ws.append([f'Person {i}', 20+i%60, ['Oslo','Lima','Pune'][i%3]])\nwb.save(${JSON.stringify(path)})`,
  );
}

function saveOutside(path: string, n: number): void {
  python(
    `import openpyxl\nwb=openpyxl.load_workbook(${JSON.stringify(path)}); ws=wb['People']\n` +
      `ws.cell(row=2, column=2).value=${1000 + n}\nwb.save(${JSON.stringify(path)})`,
  );
}

/** Starts the server with an inspector on a free port; resolves with both URLs. */
function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string; inspector: string }> {
  const child = spawn(
    process.execPath,
    ['--inspect=127.0.0.1:0', CLI, '--data-dir', dataDir, 'serve', '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((ok, fail) => {
    let url = '';
    let inspector = '';
    const seen = () => url && inspector && ok({ child, url, inspector });
    child.stdout?.on('data', (chunk: Buffer) => {
      url ||= /http:\/\/127\.0\.0\.1:\d+/.exec(String(chunk))?.[0] ?? '';
      seen();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      inspector ||= /ws:\/\/\S+/.exec(String(chunk))?.[0] ?? '';
      seen();
    });
    child.on('exit', (code) => fail(new Error(`server exited (${code})`)));
  });
}

/** A receiver that resolves `next()` on each delivery. */
async function startReceiver(): Promise<{ url: string; next: () => Promise<void>; close: () => void }> {
  let waiting: (() => void) | null = null;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      res.end('ok');
      waiting?.();
      waiting = null;
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    next: () => new Promise<void>((ok) => (waiting = ok)),
    close: () => server.close(),
  };
}

/** The server files with a function called in every one of three runs of `act`. */
async function filesPassed(
  inspector: Inspector,
  act: () => Promise<void>,
  settle: () => Promise<void> = async () => {},
): Promise<string[]> {
  const runs: string[][] = [];
  for (let i = 0; i < 3; i++) {
    runs.push(await filesPassedOnce(inspector, act));
    await settle(); // outside the window: what the request set going (its delivery) ends before the next run
  }
  return runs[0]!.filter((f) => runs.every((run) => run.includes(f)));
}

/** The server files with at least one function called while `act` ran. */
async function filesPassedOnce(inspector: Inspector, act: () => Promise<void>): Promise<string[]> {
  await inspector.send('Profiler.takePreciseCoverage'); // resets the counts
  await act();
  const coverage = await inspector.send<Coverage>('Profiler.takePreciseCoverage');
  const files = new Set<string>();
  for (const script of coverage.result) {
    if (!script.url.startsWith('file://') || !script.url.includes('/server/')) continue;
    // The first entry is the module's top level, run once on import: only calls count.
    if (script.functions.slice(1).some((f) => (f.ranges[0]?.count ?? 0) > 0))
      files.add(relative(ROOT, new URL(script.url).pathname));
  }
  return [...files].sort();
}

function report(name: string, files: string[]): void {
  const folders = new Set(files.map((f) => f.split('/').slice(0, -1).join('/')));
  console.log(`${name}: ${files.length} files in ${folders.size} folders`);
  if (listFiles) for (const f of files) console.log(`  ${f}`);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sheetport-walk-'));
  const book = join(dir, 'people.xlsx');
  const dataDir = join(dir, 'data');
  writeWorkbook(book);
  const connection = cli(dataDir, 'connect', book);
  const key = String(cli(dataDir, 'keys', 'create', '--scope', 'read_write').key);
  const receiver = await startReceiver();
  const { child, url, inspector: inspectorUrl } = await startServer(dataDir);
  const inspector = await Inspector.open(inspectorUrl);
  try {
    await inspector.send('Profiler.enable');
    await inspector.send('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const hook = await fetch(`${url}/v1/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        url: receiver.url,
        spreadsheet_id: connection.spreadsheet_id,
        sheet_name: 'People',
      }),
    });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${await hook.text()}`);
    const rows = `${url}/api/spreadsheets/${String(connection.user_key)}/People`;
    let n = 0;
    const append = async () => {
      const delivered = receiver.next();
      const res = await fetch(rows, {
        method: 'POST',
        headers,
        body: JSON.stringify({ Name: `New ${n++}`, Age: 30 }),
      });
      if (res.status !== 201) throw new Error(`append: ${res.status} ${await res.text()}`);
      return { delivered }; // wrapped: the walk ends at the answer, the delivery is awaited apart
    };
    const outside = async () => {
      const delivered = receiver.next();
      saveOutside(book, n++);
      await delivered;
    };
    const list = async () => {
      const term = `person ${n++}`; // never asked before: nothing answers from a cache
      const res = await fetch(`${rows}?search=Name:${encodeURIComponent(term)}&sort=-Age,Name&format=csv`, {
        headers,
      });
      if (res.status !== 200) throw new Error(`list: ${res.status}`);
      await res.text();
    };
    const agent = new Client({ name: 'sheetport-walk', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { ...headers } } }),
    );
    const listed = (await (await fetch(`${url}/v1/spreadsheets`, { headers })).json()) as {
      data: { sheets: { sheet_id: string; name: string }[] }[];
    };
    const sheetId = listed.data[0]?.sheets.find((sheet) => sheet.name === 'People')?.sheet_id;
    const query = async () => {
      const result = await agent.callTool({
        name: 'query_rows',
        arguments: { sheet_id: sheetId, search: `Name:person ${n++}`, sort: '-Age', limit: 20 },
      });
      if (result.isError) throw new Error(`query_rows: ${JSON.stringify(result.content)}`);
    };
    for (let i = 0; i < 3; i++) {
      await (await append()).delivered;
      await outside();
      await list();
      await query();
    }
    let delivered: Promise<void> = Promise.resolve();
    const appended = await filesPassed(
      inspector,
      async () => {
        delivered = (await append()).delivered;
      },
      () => delivered,
    );
    report('append to .xlsx until answered (webhook queued)', appended);
    report('outside save until the webhook is delivered', await filesPassed(inspector, outside));
    report('list with search + sort + csv', await filesPassed(inspector, list));
    report('MCP query_rows', await filesPassed(inspector, query));
    await agent.close();
  } finally {
    inspector.close();
    child.kill('SIGTERM');
    receiver.close();
    await new Promise((ok) => child.once('exit', ok));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
