/**
 * `/mcp` is declared in the route table and runs the route pipeline's guards (http/mcp.ts): the key (401 in the
 * contract's envelope), then the pipeline's JSON body rules with its own 8 MiB limit: another content type is 415,
 * a body over 8 MiB is 413 (a declared one before it is sent), a body between the API's 5 MiB and 8 MiB reaches
 * the MCP server, and a method other than GET, POST and DELETE is 405 with `Allow`. Real server, real HTTP.
 */
import http from 'node:http';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../server/http/body.ts';
import { MCP_MAX_BODY_BYTES } from '../../server/http/mcp.ts';
import { type Harness, startHarness } from '../helpers/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const MCP_ACCEPT = 'application/json, text/event-stream';

/** An initialize request whose client name pads the body to about `bytes`. */
function initializeOf(bytes: number): string {
  const message = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'x'.repeat(Math.max(0, bytes - 200)), version: '1' },
    },
  };
  return JSON.stringify(message);
}

const post = (body: string, contentType = 'application/json') =>
  h.fetch('/mcp', { method: 'POST', headers: { 'content-type': contentType, accept: MCP_ACCEPT }, body });

describe('/mcp through the route pipeline', () => {
  it('refuses a request without a key in the contract envelope', async () => {
    const res = await h.fetch('/mcp', {
      method: 'POST',
      auth: null,
      headers: { 'content-type': 'application/json', accept: MCP_ACCEPT },
      body: initializeOf(0),
    });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('unauthorized');
  });

  it('takes JSON only, up to 8 MiB: a body past the API limit reaches the MCP server', async () => {
    const plain = await post(initializeOf(0), 'text/plain');
    expect(plain.status).toBe(415);
    expect((await plain.json()).error.code).toBe('unsupported_media_type');

    const large = await post(initializeOf(MAX_BODY_BYTES + 1024 * 1024));
    expect(large.status).toBe(200);
    expect(large.headers.get('mcp-session-id')).toBeTruthy();

    const tooLarge = await post(initializeOf(MCP_MAX_BODY_BYTES + 1024));
    expect(tooLarge.status).toBe(413);
    const { error } = await tooLarge.json();
    expect(error).toMatchObject({ code: 'payload_too_large', message: 'Request body is larger than 8 MB.' });
  });

  it('refuses a declared body over 8 MiB at once, before it is sent', async () => {
    const { port } = new URL(h.url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/mcp',
          headers: {
            authorization: `Bearer ${h.key}`,
            'content-type': 'application/json',
            accept: MCP_ACCEPT,
            'content-length': String(MCP_MAX_BODY_BYTES + 1),
          },
        },
        (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on('error', reject);
      req.write('{"jsonrpc":'); // and never the rest
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe('payload_too_large');
  });

  it('answers another method 405 with the methods it has', async () => {
    const res = await h.fetch('/mcp', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('DELETE, GET, HEAD, POST');
  });
});
