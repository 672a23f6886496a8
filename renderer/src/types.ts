/** The admin API's answers, as the dashboard reads them (docs/openapi.json has the full shapes). */
export type CellValue = string | number | boolean | null;

export interface Connection {
  spreadsheet_id: string;
  user_key: string;
  name: string;
  source: string;
  public_read: boolean;
  created_at: string;
  location: string;
  /** Its owner made the file read-only: SheetPort refuses writes to it. */
  read_only?: boolean;
  /** Its first read under way, nothing to answer from yet: how much of the file is read (0 to 1). */
  reading?: { fraction: number } | null;
}

export interface SheetSummary {
  sheet_id: string;
  name: string;
  header: string[];
  row_count: number;
}

export interface ConnectionDetail extends Connection {
  sheets: SheetSummary[];
}

export interface Preview extends SheetSummary {
  rows: CellValue[][];
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scope: 'read' | 'read_write';
  plan: 'free' | 'pro' | 'enterprise';
  limits: { per_second: number; daily: number };
  connections: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  today?: { requests: number; refused_per_second: number; refused_daily: number };
}

export interface UsageReport {
  days: { day: string; requests: number }[];
}

export interface Webhook {
  webhook_id: string;
  url: string;
  spreadsheet_id: string;
  sheet_name: string;
  events: string[];
  /** Its condition (docs/api.md, "Conditional webhooks"); null: none. */
  where: string | null;
  columns: string[] | null;
  status: 'active' | 'paused';
  /** What the newest attempts say about the receiver (the admin surface only). */
  health: WebhookHealth;
}

export interface WebhookHealth {
  /** none: never attempted; ok: the newest attempt succeeded; warning: 1-2 failures in a row; failing: more. */
  state: 'none' | 'ok' | 'warning' | 'failing';
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  failures_in_a_row: number;
}

export interface Delivery {
  delivery_id: string;
  webhook_id: string;
  event: string;
  state: 'pending' | 'in_flight' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface Attempt {
  attempt: number;
  trigger: string;
  started_at: string;
  duration_ms: number;
  status: number | null;
  error: string | null;
  response_excerpt: string | null;
  target_address: string | null;
  /** What the attempt sent (signatures included); null for attempts recorded before the server kept them. */
  request_headers: Record<string, string> | null;
}

export interface DeliveryDetail extends Delivery {
  payload: unknown;
  attempt_log: Attempt[];
}

export interface RequestLine {
  time: string | null;
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  key_id: string | null;
  aborted: boolean;
  /** The MCP tool whose call this request was. */
  tool: string | null;
}

export const EVENTS = ['row.inserted', 'row.updated', 'row.deleted', 'bulk.import'] as const;
export const STATES = ['pending', 'in_flight', 'succeeded', 'failed'] as const;

/** A kind of source that logs in to accounts (GET /admin/accounts). */
export interface AccountKind {
  kind: string;
  provider: string;
  describe: string;
  accounts: { account: string; default: boolean }[];
  storage: 'keychain' | 'file';
  storage_where: string;
  passphrase_env: string;
  passphrase_set: boolean;
}

export interface AccountLogin {
  login_id: string;
  kind: string;
  state: 'pending' | 'succeeded' | 'failed';
  consent_url: string;
  account: string | null;
  storage: 'keychain' | 'encrypted_file' | null;
  error: { code: string; message: string } | null;
}

/** What POST /admin/mcp-config answers under `configs` (server/mcp/client-config.ts builds it); null where this
 * copy of SheetPort cannot give that form. */
export interface McpClientConfigs {
  claude_desktop: { mcpServers: Record<string, unknown> } | null;
  vscode: { servers: Record<string, unknown> } | null;
  cursor: { mcpServers: Record<string, unknown> } | null;
  http: { type: 'http'; url: string; headers: Record<string, string> } | null;
}

/** A listing or an aggregate of `/v1` (shape B), as the query bar reads it. */
export interface QueryAnswer {
  data: Record<string, CellValue>[];
  meta: { total: number; matched?: number; limit: number; offset: number };
}
