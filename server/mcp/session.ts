/**
 * One MCP session's server: the tools and tab resources over the row API, for the key that opened the session.
 * Built for each session by the Streamable HTTP endpoint (http/mcp.ts); the stdio command reaches the same
 * endpoint (mcp/stdio-bridge.ts), so there is one implementation of every tool.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TabChanges } from '../changes/tab-changes.ts';
import { packageVersion } from '../lib/package-file.ts';
import type { McpSettings } from '../mcp-config.ts';
import { registerTabResources } from './resources.ts';
import type { RowApi } from './row-api.ts';
import { aggregateRows } from './tool-aggregate.ts';
import { ToolErrorsTransport } from './tool-errors.ts';
import { apiFailure, invalidArguments, toolFailure } from './tool-results.ts';
import { registerReadTools } from './tools-read.ts';
import { isWriteTool, registerWriteTools, writeRequestOf } from './tools-write.ts';
import { registerFilterWriteTools } from './tools-write-where.ts';

const INSTRUCTIONS =
  'SheetPort serves the rows of spreadsheet tabs (Excel .xlsx, .csv and Google Sheets) as typed records keyed ' +
  "by their header. Call list_sheets first, then describe_sheet for a tab's columns and types. Let the server " +
  'filter, sort and page (query_rows with where, search, sort, fields) and count or add up (aggregate_rows) ' +
  "instead of reading whole tabs. Rows are numbered from 1 under the header; get_row gives a row's etag, which " +
  'update_row and delete_row take as if_match. To write by a key column use upsert_rows; by a filter, ' +
  'update_rows_where or delete_rows_where. Writes need a read_write key. Errors carry a code ' +
  '(structuredContent.error.code) saying what to fix.';

export interface McpSessionOptions {
  api: RowApi;
  /** The key's scope: a read key is offered the read tools only. */
  scope: 'read' | 'read_write';
  tabChanges: TabChanges;
  settings: McpSettings;
}

/**
 * The SDK's own refusals as tool errors with a code: arguments its schema refuses, and a write tool called by a
 * read key, which is not offered it. That call still goes to the row API, as the tool's request on no particular
 * tab, so that the API refuses it (403) in its own words and its request log has the line, as for any call.
 */
function toolErrorOf(api: RowApi, message: string): CallToolResult | Promise<CallToolResult> {
  const text = message.replace(/^MCP error -?\d+: /, '');
  if (text.includes('Input validation error')) return invalidArguments(text);
  const hidden = /^Tool (\S+) disabled$/.exec(text)?.[1];
  if (hidden && isWriteTool(hidden)) {
    return api.call({ tool: hidden, ...writeRequestOf(hidden, '-') }).then(apiFailure);
  }
  return toolFailure({ code: 'internal_error', message: text, status: 500 });
}

export interface McpSession {
  server: McpServer;
  /** Serve the session over `transport`; the SDK's refusals of a tool call are answered like the row API's. */
  connect(transport: Transport): Promise<void>;
  close(): void;
}

export function createMcpSession(options: McpSessionOptions): McpSession {
  const server = new McpServer(
    { name: 'sheetport', title: 'SheetPort', version: packageVersion() },
    { instructions: INSTRUCTIONS },
  );
  registerReadTools(server, options.api, options.settings);
  aggregateRows(server, options.api, options.settings);
  const writeTools = [
    ...registerWriteTools(server, options.api),
    ...registerFilterWriteTools(server, options.api),
  ];
  // A read key is not offered what it may not do; a client calling a write tool anyway is refused as the API
  // refuses a read key's write (toolErrorOf).
  if (options.scope !== 'read_write') for (const tool of writeTools) tool.disable();
  const resources = registerTabResources(server, options.api, options.tabChanges, options.settings);
  return {
    server,
    connect: (transport) =>
      server.connect(new ToolErrorsTransport(transport, (message) => toolErrorOf(options.api, message))),
    close() {
      resources.close();
      void server.close().catch(() => {});
    },
  };
}
