// The fake's own tiny request/response shapes (node:http underneath, raw paths kept).
import type { IncomingHttpHeaders } from 'node:http';

export type FakeRequest = {
  method: string;
  /** Undecoded path: Google's `{range}` segment may hold encoded `/`, `:` and `?`. */
  rawPath: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** Parsed JSON body, or form fields for OAuth; {} when empty. */
  body: Record<string, unknown>;
};

export type FakeResponse = { status: number; body?: unknown; headers?: Record<string, string> };

export type QuotaKind = 'read' | 'write' | 'none';

export type Route = {
  method: string;
  pattern: RegExp;
  /** Sheets quota bucket the call counts against (Drive and OAuth calls count against none). */
  quota: QuotaKind;
  /** Whether the call needs an OAuth bearer token. */
  auth: boolean;
  handle: (req: FakeRequest, params: string[]) => FakeResponse | Promise<FakeResponse>;
};

export const ok = (body: unknown): FakeResponse => ({ status: 200, body });

export const queryFlag = (query: URLSearchParams, name: string): boolean =>
  (query.get(name) ?? '').toLowerCase() === 'true';
