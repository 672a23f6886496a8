/**
 * `sheetport mcp`'s bridge, spawned by the official SDK's stdio client, against a Streamable HTTP MCP server found
 * through the data dir's server.json: every message goes both ways (requests, answers, and a notification the
 * server sends on its own), each request carries the bearer key and, after initialize, the protocol version; the
 * session is ended (DELETE) when the client closes stdin, and the process exits. A refused key (401) exits 2.
 *
 * The server here is the SDK's own McpServer over its Streamable HTTP transport on a real socket, standing in for
 * a SheetPort server so the bridge is checked on its own; test/cli/mcp-stdio.test.ts runs it against SheetPort.
 */

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  LATEST_PROTOCOL_VERSION,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { writeServerInfo } from '../../server/server-info.ts';
import { cliEnv, SHEETPORT_BIN } from '../helpers/cli.ts';
import { initializeMessage } from '../helpers/mcp-client.ts';

const KEY = 'sp_test_bridge_key';
let dir: string;
let dataDir: string;
let server: http.Server;
const seen: { method: string; auth: string; version: string; session: string }[] = [];
const sessions = new Map<string, { transport: StreamableHTTPServerTransport; mcp: McpServer }>();

function standIn(): McpServer {
  const mcp = new McpServer({ name: 'stand-in', version: '1.0.0' });
  mcp.registerTool(
    'echo',
    { description: 'says it back', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return mcp;
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const session = String(req.headers['mcp-session-id'] ?? '');
  seen.push({
    method: req.method ?? '',
    auth: req.headers.authorization ?? '',
    version: String(req.headers['mcp-protocol-version'] ?? ''),
    session,
  });
  if (req.headers.authorization !== `Bearer ${KEY}`) {
    res.writeHead(401, { 'WWW-Authenticate': 'Bearer', 'Content-Type': 'application/json' });
    res.end('{"error":{"code":"unauthorized","message":"Invalid API key."}}');
    return;
  }
  const known = sessions.get(session);
  if (known) return known.transport.handleRequest(req, res);
  const mcp = standIn();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      sessions.set(id, { transport, mcp });
    },
  });
  await mcp.connect(transport);
  await transport.handleRequest(req, res);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-mcp-bridge-'));
  dataDir = path.join(dir, 'data');
  await mkdir(dataDir);
  server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // What a running SheetPort server writes: this process stands in for it.
  await writeServerInfo(dataDir, { url: `http://127.0.0.1:${port}`, port, pid: process.pid });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe('sheetport mcp bridges stdio to the running server', () => {
  it('forwards requests, answers and notifications, and ends the session when stdin closes', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SHEETPORT_BIN, 'mcp', '--data-dir', dataDir],
      env: cliEnv({ SHEETPORT_KEY: KEY }) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'bridge-test', version: '1.0.0' });
    await client.connect(transport);
    const pid = transport.pid;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    const answer = await client.callTool({ name: 'echo', arguments: { text: 'héllo' } });
    expect(answer.content).toEqual([{ type: 'text', text: 'héllo' }]);

    // A notification the server sends outside any request reaches the client (the GET event stream).
    const notified = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    const [live] = [...sessions.values()];
    await waitFor(() => seen.some((s) => s.method === 'GET'));
    live?.mcp.sendToolListChanged();
    await notified;

    await client.close();
    expect(seen.every((s) => s.auth === `Bearer ${KEY}`)).toBe(true);
    const afterInit = seen.filter((s) => s.session !== '');
    expect(afterInit.length).toBeGreaterThan(2);
    expect(afterInit.every((s) => s.version === LATEST_PROTOCOL_VERSION)).toBe(true);
    expect(seen.at(-1)?.method).toBe('DELETE');
    if (pid === null) throw new Error('the bridge did not start');
    await waitFor(() => !alive(pid));
  });

  it('exits 2 when the server refuses the key, answering the initialize request with an error', async () => {
    const child = spawn(process.execPath, [SHEETPORT_BIN, 'mcp', '--data-dir', dataDir], {
      env: cliEnv({ SHEETPORT_KEY: 'sp_wrong' }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const initialize = initializeMessage(1);
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    const [code] = (await once(child, 'close')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/refused the API key \(401\)/);
    const reply = JSON.parse(stdout.trim()) as { id: number; error?: { message: string } };
    expect(reply.id).toBe(1);
    expect(reply.error?.message).toMatch(/401/);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
