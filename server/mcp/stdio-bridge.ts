/**
 * `sheetport mcp`'s transport: the JSON-RPC messages of an MCP client on stdin/stdout, forwarded both ways to a
 * SheetPort server's Streamable HTTP endpoint (`/mcp`) with the API key as the bearer credential. The server's
 * MCP implementation is the only one; this moves messages and nothing else. Either side closing closes the other:
 * stdin ending (the client quit) ends the HTTP session, and the server going away ends the stdio side.
 */
import type { Readable, Writable } from 'node:stream';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  ErrorCode,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/** How the bridge ended: stdin ended or `close()` was called, the key was refused at initialize (401), or the
 * server went away (not answering, or no longer knowing the session). */
export type BridgeEnd = 'ended' | 'key_refused' | 'server_gone';

export interface BridgeOptions {
  /** The server's `/mcp` endpoint. */
  url: URL;
  key: string;
  /** One line for the user, on stderr (stdout carries JSON-RPC only). */
  log: (message: string) => void;
  stdin?: Readable;
  stdout?: Writable;
}

export interface StdioBridge {
  /** Resolves once both sides are closed, saying why. */
  readonly ended: Promise<BridgeEnd>;
  /** Ends the HTTP session (DELETE /mcp) and stops reading stdin. */
  close(reason?: BridgeEnd): Promise<void>;
}

/** A DELETE that does not answer within this long does not hold the exit. */
const END_SESSION_MS = 2_000;

export async function bridgeStdio(options: BridgeOptions): Promise<StdioBridge> {
  const stdin = options.stdin ?? process.stdin;
  const stdio = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const http = new StreamableHTTPClientTransport(options.url, {
    requestInit: { headers: { Authorization: `Bearer ${options.key}` } },
  });
  let initializeId: RequestId | null = null;
  let closing: Promise<void> | null = null;
  let resolveEnded: (end: BridgeEnd) => void = () => {};
  const ended = new Promise<BridgeEnd>((resolve) => {
    resolveEnded = resolve;
  });

  const close = (reason: BridgeEnd = 'ended'): Promise<void> => {
    closing ??= (async () => {
      if (reason === 'ended') await endSession(http);
      await http.close();
      await stdio.close();
      resolveEnded(reason);
    })();
    return closing;
  };

  let firstMessage: JSONRPCMessage | null = null;
  stdio.onmessage = (message) => {
    firstMessage ??= message;
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializeId = message.id;
    // Not awaited: a request answered on a stream must not hold the ones after it.
    http.send(message).catch((err: unknown) => {
      const refused = err instanceof StreamableHTTPError && err.code === 401;
      if (refused && isJSONRPCRequest(message) && message.id === initializeId) {
        options.log('SheetPort refused the API key (401): check SHEETPORT_KEY or --key-file.');
        void answerWithError(stdio, message.id, 'The API key was refused (401).').then(() =>
          close('key_refused'),
        );
        return;
      }
      const reason = err instanceof Error ? err.message : String(err);
      if (isJSONRPCRequest(message)) void answerWithError(stdio, message.id, reason);
      if (err instanceof StreamableHTTPError && err.code === 404 && message === firstMessage) {
        options.log(`The SheetPort server at ${options.url.origin} has no MCP endpoint (an older version?).`);
        void close('server_gone');
      } else if (serverGone(err)) {
        options.log(`The SheetPort server at ${options.url.origin} is gone (${reason}); stopping.`);
        void close('server_gone');
      } else options.log(`Forwarding a message to ${options.url.href} failed: ${reason}`);
    });
  };
  http.onmessage = (message) => {
    // The version the server chose goes on every later request, as the SDK's own client does.
    if (isJSONRPCResultResponse(message) && message.id === initializeId) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') http.setProtocolVersion(version);
    }
    void stdio.send(message);
  };
  // A send's failure is handled above; what else fails (the event stream, its reconnections) is said once here.
  http.onerror = (err) => {
    if (closing || err instanceof StreamableHTTPError || err.name === 'AbortError') return;
    if (/Maximum reconnection attempts/.test(err.message)) {
      options.log(`The SheetPort server at ${options.url.origin} stopped answering; stopping.`);
      void close('server_gone');
    }
  };
  stdio.onerror = (err) => options.log(`Unreadable input on stdin: ${err.message}`);
  // The SDK's stdio transport does not watch for the end of its input: the client quitting closes the bridge.
  stdin.once('end', () => void close('ended'));
  stdin.once('close', () => void close('ended'));

  await http.start();
  await stdio.start();
  return { ended, close };
}

/** The request answered with a JSON-RPC error, so the client is not left waiting for it. */
function answerWithError(stdio: StdioServerTransport, id: RequestId, message: string): Promise<void> {
  const error: JSONRPCMessage = {
    jsonrpc: '2.0',
    id,
    error: { code: ErrorCode.InternalError, message: `SheetPort: ${message}` },
  };
  return stdio.send(error);
}

/** Nothing answers at the URL any more (connection refused or reset), or the server no longer knows the session. */
function serverGone(err: unknown): boolean {
  if (err instanceof StreamableHTTPError) return err.code === 404;
  return err instanceof TypeError; // fetch's "fetch failed": the socket, not the server, said no
}

async function endSession(http: StreamableHTTPClientTransport): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, END_SESSION_MS);
  });
  await Promise.race([http.terminateSession().catch(() => {}), late]);
  clearTimeout(timer);
}
