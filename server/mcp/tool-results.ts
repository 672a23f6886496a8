/**
 * How a tool call's answer is put to the agent: the row API's answer as structured content (and the same JSON
 * as text, for clients that read only text), or a tool error (`isError`) carrying the contract's error `code`,
 * message and details, so the agent can correct its call. A refusal by the rate limit also carries what the
 * limit headers say, since a tool result has no headers.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { RowApiAnswer } from './row-api.ts';

export interface ToolError {
  code: string;
  message: string;
  status: number;
  details?: Record<string, unknown>;
}

export function toolSuccess(structured: Record<string, unknown>, hint?: string): CallToolResult {
  const text = JSON.stringify(structured);
  return {
    content: [{ type: 'text', text: hint ? `${text}\n\n${hint}` : text }],
    structuredContent: structured,
  };
}

export function toolFailure(error: ToolError): CallToolResult {
  return {
    content: [{ type: 'text', text: `Error ${error.code}: ${error.message}` }],
    structuredContent: { error },
    isError: true,
  };
}

/** Input the tool's schema let through but its own checks refuse (the row API was not called). */
export function invalidArguments(message: string, details?: Record<string, unknown>): CallToolResult {
  return toolFailure({ code: 'invalid_parameter', message, status: 400, ...(details ? { details } : {}) });
}

/**
 * The row API's error envelope (`{error: {code, message, request_id, ...members naming the culprit}}`) as a
 * tool error: the members besides code and message become its `details`.
 */
export function apiFailure(answer: RowApiAnswer): CallToolResult {
  const envelope = isRecord(answer.body) && isRecord(answer.body.error) ? answer.body.error : {};
  const { code, message, ...details } = envelope;
  // A refusal by the limit says what its headers would have: the limits, what is left, when it resets.
  const limits = answer.status === 429 ? rateLimitOf(answer.headers) : null;
  if (limits) details.rate_limit = limits;
  return toolFailure({
    code: typeof code === 'string' ? code : `http_${answer.status}`,
    message: typeof message === 'string' ? message : `The request failed (HTTP ${answer.status}).`,
    status: answer.status,
    ...(Object.keys(details).length > 0 ? { details } : {}),
  });
}

/** What the `X-RateLimit-*` headers of an answer say, as numbers; null when the answer has none. */
export function rateLimitOf(headers: RowApiAnswer['headers']): Record<string, number> | null {
  const fields: [string, string][] = [
    ['limit', 'x-ratelimit-limit'],
    ['remaining', 'x-ratelimit-remaining'],
    ['reset', 'x-ratelimit-reset'],
    ['daily_limit', 'x-ratelimit-daily-limit'],
    ['daily_remaining', 'x-ratelimit-daily-remaining'],
    ['daily_reset', 'x-ratelimit-daily-reset'],
    ['retry_after', 'retry-after'],
  ];
  const limits: Record<string, number> = {};
  for (const [field, header] of fields) {
    const value = headers[header];
    if (value !== undefined && value !== '' && Number.isFinite(Number(value))) limits[field] = Number(value);
  }
  return Object.keys(limits).length > 0 ? limits : null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const toolErrorSchema = z
  .object({
    code: z.string(),
    message: z.string(),
    status: z.number(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .describe("Only on a tool error (isError): the contract's error code, its message and details.");

/**
 * A tool's output schema: its fields on success, or `error` alone on a tool error. Every field is optional in
 * the schema because clients in use (the TypeScript SDK's 1.x client) validate an error's structured content
 * against the output schema too, and would reject the error before the agent could read its code.
 */
export function resultSchema<S extends Record<string, z.ZodType>>(shape: S) {
  const optional = Object.fromEntries(Object.entries(shape).map(([name, type]) => [name, type.optional()]));
  return { ...(optional as { [K in keyof S]: z.ZodOptional<S[K]> }), error: toolErrorSchema.optional() };
}
