/**
 * How deeply a request's JSON may nest arrays and objects. Every documented body, MCP's JSON-RPC included, nests
 * a handful of levels; a body nested thousands deep would overflow the stack of whatever walks it recursively
 * (JSON.stringify for the Idempotency-Key's fingerprint answered 500). So the raw bytes are checked before
 * anything parses them, with one pass that keeps no stack: strings (and their escapes) are skipped, and only
 * `[`, `{`, `]`, `}` outside them count.
 */

/** The deepest nesting a request body may have: `{"a":[1]}` nests 2 levels. */
export const MAX_JSON_DEPTH = 32;

/** The error type body-parser carries to the error envelope (errors.ts) when a body nests too deeply. */
export const TOO_DEEP = 'entity.too.deep';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Where the string that opens at `open` (a `"`) ends: just past its closing quote, or the end of the bytes. */
function stringEnd(bytes: Uint8Array, open: number): number {
  let at = open;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at === -1) return bytes.length;
    // A quote is escaped when an odd number of backslashes stands before it.
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at + 1;
  }
}

/** Whether the JSON text `bytes` nests arrays and objects deeper than `max` levels. Malformed text is left to the parser. */
export function nestsDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let at = 0;
  while (at < bytes.length) {
    const byte = bytes[at];
    if (byte === QUOTE) {
      at = stringEnd(bytes, at);
      continue;
    }
    if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      depth++;
      if (depth > max) return true;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth--;
    }
    at++;
  }
  return false;
}

/** Throws body-parser's kind of error (a `type`) when `bytes` nest deeper than MAX_JSON_DEPTH. */
export function refuseDeepJson(bytes: Uint8Array): void {
  if (nestsDeeperThan(bytes, MAX_JSON_DEPTH)) {
    throw Object.assign(new Error(`Request body nests deeper than ${MAX_JSON_DEPTH} levels.`), {
      type: TOO_DEEP,
    });
  }
}
