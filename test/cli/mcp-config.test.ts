/**
 * `sheetport mcp config` as a user runs it: JSON for Claude Desktop, VS Code and Cursor whose command and script
 * are absolute paths that exist and whose `--data-dir` is the data dir, with a fresh key of the chosen scope that
 * a real server accepts; the Streamable HTTP form names the running server's `/mcp`. And `sheetport mcp` with no
 * key, or an unreadable key file, exits 2 saying how to give one.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../server/index.ts';
import { type AnyJson, cliJson, runCli, SHEETPORT_BIN } from '../helpers/cli.ts';

let dir: string;
let dataDir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-mcp-config-'));
  dataDir = path.join(dir, 'data');
  await mkdir(dataDir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function status(url: string, key: string, method = 'GET'): Promise<number> {
  const res = await fetch(url, { method, headers: { Authorization: `Bearer ${key}` } });
  await res.body?.cancel();
  return res.status;
}

describe('sheetport mcp config', () => {
  it('prints each client the absolute command, the data dir and a fresh key that a server accepts', async () => {
    const out: AnyJson = await cliJson(['mcp', 'config', '--scope', 'read_write', '--name', 'claude'], {
      dataDir,
    });
    expect(out.scope).toBe('read_write');
    expect(out.data_dir).toBe(dataDir);
    const entry = out.configs.claude_desktop.mcpServers.sheetport;
    expect(path.isAbsolute(entry.command)).toBe(true);
    expect(existsSync(entry.command)).toBe(true);
    expect(entry.args).toEqual([SHEETPORT_BIN, 'mcp', '--data-dir', dataDir]);
    expect(existsSync(entry.args[0])).toBe(true);
    expect(entry.env).toEqual({ SHEETPORT_KEY: out.key });
    expect(out.configs.vscode).toEqual({ servers: { sheetport: { type: 'stdio', ...entry } } });
    expect(out.configs.cursor).toEqual({ mcpServers: { sheetport: entry } });
    // No server runs on the data dir: no URL to give.
    expect(out.configs.http).toBeNull();

    const service = await startServer({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
    try {
      expect(await status(`${service.url}/v1/spreadsheets`, out.key)).toBe(200);
      // The key is recorded with the name and scope asked for.
      const keys = (await (
        await fetch(`${service.url}/admin/keys`, {
          headers: { Authorization: `Bearer ${service.adminToken}` },
        })
      ).json()) as { data: { id: string; name: string; scope: string }[] };
      expect(keys.data.find((k) => k.id === out.id)).toMatchObject({ name: 'claude', scope: 'read_write' });
    } finally {
      await service.stop();
    }
  });

  it('gives the running server its Streamable HTTP form, and a read key by default', async () => {
    const service: RunningServer = await startServer({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
    try {
      const out: AnyJson = await cliJson(['mcp', 'config'], { dataDir });
      expect(out.scope).toBe('read');
      expect(out.configs.http).toEqual({
        type: 'http',
        url: `${service.url}/mcp`,
        headers: { Authorization: `Bearer ${out.key}` },
      });
      expect(await status(`${service.url}/v1/spreadsheets`, out.key)).toBe(200);
      const write = await fetch(`${service.url}/v1/webhooks`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${out.key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: 'https://example.com/hook' }),
      });
      await write.body?.cancel();
      expect(write.status).toBe(403);
    } finally {
      await service.stop();
    }
  });

  it('without --json, prints each snippet under the client it is for', async () => {
    const run = await runCli(['mcp', 'config'], { dataDir });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    for (const label of ['Claude Desktop', 'VS Code', 'Cursor']) expect(run.stdout).toContain(label);
    const snippet = /Claude Desktop \(claude_desktop_config\.json\):\n(\{[\s\S]*?\n\})/.exec(run.stdout)?.[1];
    const parsed = JSON.parse(snippet ?? 'null') as AnyJson;
    expect(parsed.mcpServers.sheetport.env.SHEETPORT_KEY).toMatch(/^sp_/);
  });
});

describe('sheetport mcp without a key', () => {
  it('exits 2 and says how to give one', async () => {
    const run = await runCli(['mcp'], { dataDir, env: { SHEETPORT_KEY: undefined } });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/SHEETPORT_KEY/);
    expect(run.stderr).toMatch(/--key-file/);
  });

  it('exits 2 when the key file cannot be read or is empty', async () => {
    const missing = await runCli(['mcp', '--key-file', path.join(dir, 'nope.txt')], { dataDir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Cannot read the key file .*nope\.txt \(ENOENT\)/);
    const empty = path.join(dir, 'empty.txt');
    await writeFile(empty, '\n');
    const blank = await runCli(['mcp', '--key-file', empty], { dataDir });
    expect(blank.code).toBe(2);
    expect(blank.stderr).toMatch(/is empty/);
  });
});
