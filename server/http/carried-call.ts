/**
 * A call an `/mcp` session runs in process (mcp-row-api.ts): the tool it is the call of, which the request log
 * line names, and the key the `/mcp` request carrying it admitted, which the key guard takes instead of looking
 * the key up again (one look-up per tool call). Held on the request object under a symbol of this module, so a
 * client cannot name a tool or a key for its own requests: nothing a request carries is read here. Nothing is
 * kept here either: the mark lives and goes with its request.
 */
import type { ApiKeyRecord } from '../repositories/keys.ts';

const CARRIED = Symbol('sheetport.carriedCall');

export interface CarriedCall {
  /** The MCP tool (or resource operation) whose call the request is. */
  tool: string;
  /** The live key the carrying `/mcp` request was admitted with. */
  key: ApiKeyRecord;
}

type Marked = { [CARRIED]?: CarriedCall };

/** Marks `req`, a request built in process, as the call `call` describes. */
export function markCarried(req: object, call: CarriedCall): void {
  (req as Marked)[CARRIED] = call;
}

/** The call `req` carries, or undefined for a request off the wire. */
export function carriedCallOf(req: object): CarriedCall | undefined {
  return (req as Marked)[CARRIED];
}
