/**
 * Where the MCP server answers and what it leaves behind: on the real service (startServer, as `sheetport serve`
 * runs it) every tool call is a line of the request log naming its tool (answered whole, never marked aborted),
 * and a client cannot name one itself (the header the tools' requests once carried names nothing);
 * on the tunnel's own listener the tools work through the tunnel's app, which has no admin routes.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { closeServer, listen } from '../../server/listen.ts';
import { LOGS_DIR } from '../../server/logs/request-log.ts';
import { csvServices } from '../helpers/csv-services.ts';
import { type AnyJson, callError, callOk, mcpOverHttp } from '../helpers/mcp-client.ts';

const services = csvServices('sheetport-mcp-');
afterEach(services.stopAll);

async function logLines(dataDir: string): Promise<AnyJson[]> {
  const dir = path.join(dataDir, LOGS_DIR);
  let text = '';
  for (const f of (await readdir(dir)).filter((n) => n.startsWith('requests'))) {
    text += await readFile(path.join(dir, f), 'utf8');
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('the request log', () => {
  it('has one line per tool call, naming the tool and the key, and none a client names itself', async () => {
    const { service, dataDir } = await services.start({ requestLog: {} });
    const { record, key } = await service.context.keys.create({
      name: 'agent',
      scope: 'read_write',
      plan: 'pro',
    });
    const client = await mcpOverHttp(service.url, key);
    const listed = await callOk(client, 'list_sheets');
    const sheetId = listed.spreadsheets[0].sheets[0].sheet_id;
    await callOk(client, 'query_rows', { sheet_id: sheetId, search: 'name:ann' });
    await callOk(client, 'append_rows', { sheet_id: sheetId, rows: [{ name: 'Cy', age: 40 }] });
    await callError(client, 'get_row', { sheet_id: sheetId, row: 99 });
    await client.close();
    // A read key is not offered the write tools; calling one anyway is refused by the API, and logged.
    const reader = await service.context.keys.create({ name: 'reader', scope: 'read', plan: 'pro' });
    const readClient = await mcpOverHttp(service.url, reader.key);
    expect((await callError(readClient, 'delete_row', { sheet_id: sheetId, row: 1 })).code).toBe('forbidden');
    await readClient.close();
    // A client sending the header with a made-up token names no tool.
    await fetch(`${service.url}/v1/sheets/${sheetId}`, {
      headers: { authorization: `Bearer ${key}`, 'x-sheetport-tool-call': 'made-up' },
    });
    // The dashboard's request list shows the tool too.
    const requests = await fetch(`${service.url}/admin/requests?limit=50`, {
      headers: { authorization: `Bearer ${service.adminToken}` },
    });
    const shown = ((await requests.json()) as AnyJson).data;
    expect(shown.find((l: AnyJson) => l.tool === 'append_rows')?.status).toBe(201);
    expect(shown.find((l: AnyJson) => l.path === `/v1/sheets/${sheetId}`)?.tool).toBeNull();
    await service.stop();
    const lines = await logLines(dataDir);
    const tools = lines
      .filter((l) => l.tool)
      .map((l) => [l.tool, l.method, l.path.split('?')[0], l.status, l.key_id]);
    expect(tools).toEqual([
      ['list_sheets', 'GET', '/v1/spreadsheets', 200, record.id],
      ['query_rows', 'GET', `/v1/sheets/${sheetId}/rows`, 200, record.id],
      ['append_rows', 'POST', `/v1/sheets/${sheetId}/rows`, 201, record.id],
      ['get_row', 'GET', `/v1/sheets/${sheetId}/rows/99`, 404, record.id],
      ['delete_row', 'DELETE', '/v1/sheets/-/rows/1', 403, reader.record.id],
    ]);
    // Each call was answered whole, as a request off the wire is (none marked aborted).
    expect(lines.filter((l) => l.tool && l.aborted)).toEqual([]);
    const spoofed = lines.find((l) => l.path === `/v1/sheets/${sheetId}`);
    expect(spoofed).toBeDefined();
    expect(spoofed.tool).toBeUndefined();
    // The MCP requests themselves are logged too, without a tool.
    expect(lines.some((l) => l.path === '/mcp' && l.method === 'POST' && l.tool === undefined)).toBe(true);
  });
});

describe('the key of a tool call', () => {
  it('is looked up once, by the /mcp request carrying the call, and the call is made as that key', async () => {
    const { service, dataDir } = await services.start({ requestLog: {} });
    const { record, key } = await service.context.keys.create({ name: 'agent', scope: 'read', plan: 'pro' });
    const client = await mcpOverHttp(service.url, key);
    const sheetId = (await callOk(client, 'list_sheets')).spreadsheets[0].sheets[0].sheet_id;
    // Counting the look-ups of the service's own key store (the real one, only counted).
    const keys = service.context.keys;
    const findByKey = keys.findByKey.bind(keys);
    let lookUps = 0;
    keys.findByKey = (plain) => {
      lookUps += 1;
      return findByKey(plain);
    };
    await callOk(client, 'query_rows', { sheet_id: sheetId, search: 'name:ann' });
    expect(lookUps).toBe(1);
    // Revoked between two calls: the next /mcp request is refused, so no call is made as the key any more.
    await keys.revoke(record.id);
    await expect(callOk(client, 'query_rows', { sheet_id: sheetId })).rejects.toThrow(/401|revoked/i);
    await client.close().catch(() => {});
    await service.stop();
    const calls = (await logLines(dataDir)).filter((l) => l.tool === 'query_rows');
    expect(calls.map((l) => [l.status, l.key_id])).toEqual([[200, record.id]]);
  });
});

describe('the tunnel', () => {
  it("serves /mcp on the tunnel's listener, whose tools go through the tunnel's app", async () => {
    const { service } = await services.start();
    const { key } = await service.context.keys.create({ name: 'remote', scope: 'read', plan: 'pro' });
    const tunnelApp = createApp(service.context, {
      surface: 'tunnel',
      tunnelHosts: () => ['fake-tunnel.example'],
    });
    const { server, port } = await listen(tunnelApp.app, 0, '127.0.0.1');
    try {
      const client = await mcpOverHttp(`http://127.0.0.1:${port}`, key);
      const listed = await callOk(client, 'list_sheets');
      const sheetId = listed.spreadsheets[0].sheets[0].sheet_id;
      const rows = await callOk(client, 'query_rows', { sheet_id: sheetId, sort: '-age' });
      expect(rows.rows.map((r: AnyJson) => r.values.name)).toEqual(['Ann', 'Bob']);
      expect(
        (await callError(client, 'append_rows', { sheet_id: sheetId, rows: [{ name: 'x' }] })).code,
      ).toBe('forbidden');
      await client.close();
      const admin = await fetch(`http://127.0.0.1:${port}/admin/keys`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(admin.status).toBe(404);
    } finally {
      tunnelApp.closeStreams();
      await closeServer(server);
    }
  });
});
