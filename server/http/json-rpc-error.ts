import type { Response } from 'express';

/** A JSON-RPC error answer without an id (`/mcp` refusing a request before any session handles it). */
export function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}
