/**
 * The row API's rules applied to MCP tool calls, over both transports: scopes (a read key is offered read tools
 * only), allow-lists, formulas, rate limits with the limit's details; and, over Streamable HTTP, sessions bound
 * to their key and requests without a live key refused.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.ts';
import {
  type AnyJson,
  callError,
  callOk,
  MCP_TRANSPORTS,
  mcpClient,
  mcpOverHttp,
} from '../helpers/mcp-client.ts';
import { openOrdersSession, writeOrdersWorkbook } from '../helpers/mcp-workbook.ts';

describe.each(MCP_TRANSPORTS)('over %s', { timeout: 30_000 }, (transport) => {
  let h: Harness;
  let sheetId: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ h, sheetId, close } = await openOrdersSession(transport));
  });

  afterAll(() => close());

  describe('the key rules apply to tool calls', () => {
    it('a read key is offered the read tools only, and is refused on write tools', async () => {
      const reader = await mcpClient(transport, h, await h.createKey({ name: 'reader', scope: 'read' }));
      try {
        const offered = (await reader.listTools()).tools.map((t) => t.name).sort();
        expect(offered).toEqual([
          'aggregate_rows',
          'changes_since',
          'describe_sheet',
          'get_row',
          'list_sheets',
          'query_rows',
        ]);
        expect((await callOk(reader, 'query_rows', { sheet_id: sheetId, limit: 1 })).rows).toHaveLength(1);
        for (const [tool, args] of [
          ['append_rows', { sheet_id: sheetId, rows: [{ Customer: 'x' }] }],
          ['update_row', { sheet_id: sheetId, row: 1, values: { Notes: 'x' } }],
          ['delete_row', { sheet_id: sheetId, row: 1 }],
          ['batch', { sheet_id: sheetId, mutations: [{ op: 'delete', row: 1 }] }],
          ['upsert_rows', { sheet_id: sheetId, key: ['Customer'], rows: [{ Customer: 'x' }] }],
          ['update_rows_where', { sheet_id: sheetId, where: 'Amount > 0', values: { Notes: 'x' } }],
          ['delete_rows_where', { sheet_id: sheetId, where: 'Amount > 0' }],
        ] as const) {
          const refused = await callError(reader, tool, args);
          expect(refused.code, tool).toBe('forbidden');
          expect(refused.status).toBe(403);
        }
      } finally {
        await reader.close();
      }
    });

    it('a key limited to other spreadsheets neither lists nor reaches this one', async () => {
      const other = await h.connect(await writeOrdersWorkbook(h.dir, 'other.xlsx'));
      const narrow = await mcpOverHttp(
        h.url,
        await h.createKey({ name: 'narrow', connections: [other.spreadsheetId] }),
      );
      try {
        const listed = await callOk(narrow, 'list_sheets');
        expect(listed.spreadsheets.map((s: AnyJson) => s.spreadsheet_id)).toEqual([other.spreadsheetId]);
        expect((await callError(narrow, 'query_rows', { sheet_id: sheetId })).code).toBe('forbidden');
      } finally {
        await narrow.close();
      }
    });

    it('a formula is written as a formula only by a key that may write formulas; others store its text', async () => {
      const plain = await mcpOverHttp(
        h.url,
        await h.createKey({ name: 'plain', scope: 'read_write', allowFormulas: false }),
      );
      const formulas = await mcpOverHttp(
        h.url,
        await h.createKey({ name: 'formulas', scope: 'read_write', allowFormulas: true }),
      );
      try {
        await callOk(plain, 'update_row', { sheet_id: sheetId, row: 5, values: { Notes: '=1+1' } });
        expect((await callOk(plain, 'get_row', { sheet_id: sheetId, row: 5 })).values.Notes).toBe('=1+1');
        await callOk(formulas, 'update_row', { sheet_id: sheetId, row: 6, values: { Notes: '=1+1' } });
        expect((await callOk(plain, 'get_row', { sheet_id: sheetId, row: 6 })).values.Notes).toBe(2);
        const shown = await callOk(plain, 'get_row', { sheet_id: sheetId, row: 6, values: 'formula' });
        expect(shown.values.Notes).toBe('=1+1');
      } finally {
        await plain.close();
        await formulas.close();
      }
    });

    it('the free plan refuses the 11th call in a second, with the limit in the error', async () => {
      const free = await mcpOverHttp(
        h.url,
        await h.createKey({ name: 'free', plan: 'free', perSecond: null, daily: null }),
      );
      try {
        const results = await Promise.all(
          Array.from({ length: 11 }, () =>
            free.callTool({ name: 'query_rows', arguments: { sheet_id: sheetId, limit: 1 } }),
          ),
        );
        const refused = results.filter((r) => r.isError);
        expect(refused).toHaveLength(1);
        const error = (refused[0]!.structuredContent as AnyJson).error;
        expect(error.code).toBe('rate_limit_exceeded');
        expect(error.status).toBe(429);
        expect(error.details).toMatchObject({ limit_type: 'per_second' });
        expect(error.details.rate_limit).toMatchObject({ limit: 10, remaining: 0, daily_limit: 5000 });
        expect(error.details.rate_limit.retry_after).toBeGreaterThanOrEqual(1);
      } finally {
        await free.close();
      }
    });
  });
});

describe('over Streamable HTTP only', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it("a session belongs to the key that opened it: another key's request finds no such session", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${h.key}` } },
    });
    const owner = new Client({ name: 'owner', version: '1.0.0' });
    await owner.connect(transport);
    const other = await h.createKey({ name: 'other', scope: 'read_write' });
    const asOther = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${other}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
    });
    expect(asOther.status).toBe(404);
    expect((await owner.listTools()).tools.length).toBeGreaterThan(0);
    await owner.close();
  });

  it('a request without a key, or with a revoked one, is refused with 401', async () => {
    const res = await fetch(`${h.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as AnyJson).error.code).toBe('unauthorized');
    const key = await h.createKey({ name: 'soon revoked' });
    const session = await mcpOverHttp(h.url, key);
    const record = (await h.context.keys.list()).find((k) => k.name === 'soon revoked')!;
    await h.context.keys.revoke(record.id);
    await expect(session.callTool({ name: 'list_sheets', arguments: {} })).rejects.toThrow(
      /401|unauthorized|revoked/i,
    );
    await session.close().catch(() => {});
  });
});
