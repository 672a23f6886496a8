/**
 * `sheetport mcp` as Claude Desktop starts it, spawned by the official SDK's stdio client with the config that
 * `sheetport mcp config` printed: with no server on the data dir (the service starts in the process, on a port of
 * its own, and stops when the client closes stdin) and with `sheetport serve` running (the tool calls go to that
 * server: its request log shows them). Either way the client lists the tools and `list_sheets` names the
 * connected workbook. A key SheetPort refuses ends it with exit code 2.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServerInfo } from '../../server/server-info.ts';
import { type AnyJson, cliEnv, cliJson, startCli } from '../helpers/cli.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { initializeMessage } from '../helpers/mcp-client.ts';

let dir: string;
let dataDir: string;
let spreadsheetId: string;
let claude: { command: string; args: string[]; env: Record<string, string> };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-mcp-stdio-'));
  dataDir = path.join(dir, 'data');
  const file = await writePeopleWorkbook(dir);
  const connected: AnyJson = await cliJson(['connect', file], { dataDir });
  spreadsheetId = connected.spreadsheet_id;
  const config: AnyJson = await cliJson(['mcp', 'config', '--scope', 'read_write'], { dataDir });
  claude = config.configs.claude_desktop.mcpServers.sheetport;
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The client Claude Desktop would run, with the config's command, arguments and environment. */
async function connectClient(): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: claude.command,
    args: claude.args,
    env: cliEnv(claude.env) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

async function listsTheWorkbook(client: Client): Promise<void> {
  const tools = (await client.listTools()).tools.map((t) => t.name);
  expect(tools).toEqual(
    expect.arrayContaining(['list_sheets', 'describe_sheet', 'query_rows', 'append_rows']),
  );
  const sheets = await client.callTool({ name: 'list_sheets', arguments: {} });
  expect(sheets.isError).not.toBe(true);
  expect(JSON.stringify(sheets.structuredContent ?? sheets.content)).toContain(spreadsheetId);
}

describe('sheetport mcp over stdio', { timeout: 60_000 }, () => {
  it('with no server on the data dir, serves from a service of its own, stopped when stdin ends', async () => {
    expect(await readServerInfo(dataDir)).toBeNull();
    const { client, transport } = await connectClient();
    const info = await readServerInfo(dataDir);
    expect(info?.pid).toBe(transport.pid);
    await listsTheWorkbook(client);
    await client.close();
    // The service stopped cleanly: it removed its server.json.
    await waitFor(async () => (await readServerInfo(dataDir)) === null);
  });

  it('with a key SheetPort refuses, answers initialize with an error, stops its service and exits 2', async () => {
    const child = spawn(claude.command, claude.args, {
      env: cliEnv({ ...claude.env, SHEETPORT_KEY: 'sp_revoked' }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const initialize = initializeMessage('init');
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    const [code] = (await once(child, 'close')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/refused the API key \(401\)/);
    expect((JSON.parse(stdout.trim()) as { id: string; error?: unknown }).error).toBeDefined();
    expect(await readServerInfo(dataDir)).toBeNull();
  });

  it('with sheetport serve running, bridges to that server', async () => {
    const serve = await startCli(['serve', '--port', '0', '--json'], { dataDir, quiet: true });
    try {
      const servePid = serve.child.pid;
      const { client } = await connectClient();
      await listsTheWorkbook(client);
      await client.close();
      expect((await readServerInfo(dataDir))?.pid).toBe(servePid);
      // The tool call went through serve's own row API: its request log has it.
      await waitFor(async () => (await requestLog()).includes('list_sheets'));
    } finally {
      await serve.stop();
    }
  });
});

async function requestLog(): Promise<string> {
  const logs = path.join(dataDir, 'logs');
  const files = (await readdir(logs)).filter((f) => f.startsWith('request'));
  const texts = await Promise.all(files.map((f) => readFile(path.join(logs, f), 'utf8')));
  return texts.join('\n');
}

async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
