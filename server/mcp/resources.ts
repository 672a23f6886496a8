/**
 * Each tab the key reaches is a resource, `sheetport://sheets/{sheet_id}`: its description (columns, types,
 * examples, row count) and its first page of rows as CSV. A client may subscribe to one; the session is then told
 * (`notifications/resources/updated`) each time the tab's rows change: through the API, on another instance, or
 * in Excel or Google Sheets. Listing, reading and subscribing are requests of the `/v1` API like the tools', so
 * the key's reach and limits apply to them too.
 */
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  McpError,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { TabChanges } from '../changes/tab-changes.ts';
import { parsePublicSheetId } from '../connections/sheet-id.ts';
import type { McpSettings } from '../mcp-config.ts';
import { csv } from '../rows/formats/csv.ts';
import type { CellValue } from '../sources/source.ts';
import type { RowApi, RowApiAnswer } from './row-api.ts';

const SCHEME = 'sheetport://sheets/';

export const tabUri = (sheetId: string) => `${SCHEME}${encodeURIComponent(sheetId)}`;

function sheetIdOf(uri: string): string {
  const sheetId = uri.startsWith(SCHEME) ? decodeURIComponent(uri.slice(SCHEME.length)) : '';
  if (!parsePublicSheetId(sheetId)) {
    throw new McpError(ErrorCode.InvalidParams, `No tab resource "${uri}": expected ${SCHEME}{sheet_id}.`);
  }
  return sheetId;
}

/** The row API's refusal as a JSON-RPC error (a resource read has no tool-error form), its code in `data`. */
function refused(answer: RowApiAnswer): McpError {
  const error = (answer.body as { error?: { code?: string; message?: string } } | null)?.error;
  const code = error?.code ?? `http_${answer.status}`;
  // A refusal (the key may not reach the tab, no such tab) is the request's fault; a 5xx is the server's.
  const jsonRpc = answer.status < 500 ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new McpError(jsonRpc, `${code}: ${error?.message ?? `HTTP ${answer.status}`}`, {
    code,
    status: answer.status,
  });
}

interface SheetJson {
  sheet_id: string;
  name: string;
  row_count: number;
}

export function registerTabResources(
  server: McpServer,
  api: RowApi,
  tabChanges: TabChanges,
  settings: McpSettings,
): { close(): void } {
  const template = new ResourceTemplate(`${SCHEME}{sheet_id}`, {
    list: async () => {
      const answer = await api.call({ tool: 'resources/list', method: 'GET', route: '/v1/spreadsheets' });
      if (answer.status !== 200) throw refused(answer);
      const spreadsheets = (answer.body as { data: { name: string; sheets?: SheetJson[] }[] }).data;
      return {
        resources: spreadsheets.flatMap((s) =>
          (s.sheets ?? []).map((tab) => ({
            uri: tabUri(tab.sheet_id),
            name: `${s.name} / ${tab.name}`,
            description: `Tab "${tab.name}" of ${s.name}: ${tab.row_count} rows. Its first page as CSV.`,
            mimeType: 'text/csv',
          })),
        ),
      };
    },
  });
  server.registerResource(
    'tab',
    template,
    {
      title: 'A tab of a spreadsheet',
      description: "A tab's description and its first rows as CSV; subscribe to hear when its rows change.",
      mimeType: 'text/csv',
    },
    async (uri) => readTab(api, sheetIdOf(uri.href), uri.href, settings),
  );
  return subscriptions(server, api, tabChanges);
}

async function readTab(api: RowApi, sheetId: string, uri: string, settings: McpSettings) {
  const params = { sheetId };
  const route = '/v1/sheets/:sheetId';
  const described = await api.call({ tool: 'resources/read', method: 'GET', route, params });
  if (described.status !== 200) throw refused(described);
  const query = { limit: String(settings.maxRows) };
  const page = await api.call({
    tool: 'resources/read',
    method: 'GET',
    route: `${route}/rows`,
    params,
    query,
  });
  if (page.status !== 200) throw refused(page);
  const { header } = described.body as { header: string[] };
  const { data } = page.body as { data: Record<string, CellValue>[] };
  const rows = data.map((row) => ({ values: header.map((name) => row[name] ?? null) }));
  return {
    contents: [
      { uri, mimeType: 'text/csv', text: csv(header, rows) },
      { uri: `${uri}#description`, mimeType: 'application/json', text: JSON.stringify(described.body) },
    ],
  };
}

/** resources/subscribe and unsubscribe, each subscription a listener of the service's tab changes. */
function subscriptions(server: McpServer, api: RowApi, tabChanges: TabChanges): { close(): void } {
  const listening = new Map<string, () => void>();
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const uri = request.params.uri;
    const sheetId = sheetIdOf(uri);
    // The key must reach the tab, and it must exist, as for a read.
    const answer = await api.call({
      tool: 'resources/subscribe',
      method: 'GET',
      route: '/v1/sheets/:sheetId',
      params: { sheetId },
    });
    if (answer.status !== 200) throw refused(answer);
    if (!listening.has(uri)) {
      const tab = parsePublicSheetId(sheetId)!;
      const tell = () => void server.server.sendResourceUpdated({ uri }).catch(() => {});
      listening.set(uri, tabChanges.listenTab(tab.spreadsheetId, tab.sourceSheetId, tell));
    }
    // Answered once the change log's end is known: a change recorded after this answer is told.
    await tabChanges.current();
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    listening.get(request.params.uri)?.();
    listening.delete(request.params.uri);
    return {};
  });
  return {
    close() {
      for (const stop of listening.values()) stop();
      listening.clear();
    },
  };
}
