/**
 * How much structure a request's JSON may have. Every documented body, MCP's JSON-RPC included, nests a handful of
 * levels and holds at most tens of thousands of values; the bounds keep what a client can make the server build
 * small, checked on the raw bytes before anything parses them, in one pass that keeps no stack (a fixed array of
 * MAX_JSON_DEPTH flags): strings (and their escapes) are skipped, and only the bytes outside them count.
 *
 * - Depth: a body nested thousands deep would overflow the stack of whatever walks it recursively
 *   (JSON.stringify for the Idempotency-Key's fingerprint answered 500).
 * - Values: JSON.parse builds every value on the server's one thread; 5 MB of `[{},{},...]` or of small nested
 *   objects took it 0.2-0.5 s. 500 rows of 199 fields fit; a body holding more is refused before it is parsed.
 */

/** The deepest nesting a request body may have: `{"a":[1]}` nests 2 levels. */
export const MAX_JSON_DEPTH = 32;
/** The most values a request body may hold, counting each array element and each object member. */
export const MAX_JSON_VALUES = 100_000;

/** The error types body-parser carries to the error envelope (errors.ts) for a body past a bound. */
export const TOO_DEEP = 'entity.too.deep';
export const TOO_MANY_VALUES = 'entity.too.many.values';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
/** Short strings are scanned here; past this many bytes a native search finds the closing quote faster. */
const INLINE_STRING_BYTES = 32;

function isBlank(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Whether the quote at `at` is escaped: an odd number of backslashes stands before it. */
function escaped(bytes: Uint8Array, at: number): boolean {
  let backslashes = 0;
  while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/** Where the string that opens at `open` (a `"`) ends: just past its closing quote, or the end of the bytes. */
function stringEnd(bytes: Uint8Array, open: number): number {
  const inlineEnd = Math.min(bytes.length, open + INLINE_STRING_BYTES);
  for (let at = open + 1; at < inlineEnd; at++) {
    if (bytes[at] === BACKSLASH) at++;
    else if (bytes[at] === QUOTE) return at + 1;
  }
  let at = inlineEnd - 1;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at === -1) return bytes.length;
    if (!escaped(bytes, at)) return at + 1;
  }
}

export type JsonFault = 'depth' | 'values' | null;

/**
 * Which bound the JSON text `bytes` breaks, if any: nesting deeper than `maxDepth`, or more than `maxValues`
 * values (array elements and object members: each container holds its commas plus one, when it is not empty).
 * Malformed text is left to the parser.
 */
export function jsonFault(
  bytes: Uint8Array,
  maxDepth = MAX_JSON_DEPTH,
  maxValues = MAX_JSON_VALUES,
): JsonFault {
  // filled[d]: the container open at depth d holds something (its last value is counted when it closes).
  const filled = new Uint8Array(maxDepth + 2);
  let depth = 0;
  let values = 0;
  let at = 0;
  while (at < bytes.length) {
    const byte = bytes[at]!;
    if (byte === QUOTE) {
      filled[depth] = 1;
      at = stringEnd(bytes, at);
      continue;
    }
    if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      filled[depth] = 1;
      if (++depth > maxDepth) return 'depth';
      filled[depth] = 0;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      if (depth > 0 && filled[depth] === 1 && ++values > maxValues) return 'values';
      if (depth > 0) depth--;
    } else if (byte === COMMA) {
      if (++values > maxValues) return 'values';
    } else if (byte !== COLON && !isBlank(byte)) {
      filled[depth] = 1;
    }
    at++;
  }
  return null;
}

/** Throws body-parser's kind of error (a `type`) when `bytes` break a bound. */
export function refuseOversizedJson(bytes: Uint8Array): void {
  const fault = jsonFault(bytes);
  if (fault === 'depth') {
    throw Object.assign(new Error(`Request body nests deeper than ${MAX_JSON_DEPTH} levels.`), {
      type: TOO_DEEP,
    });
  }
  if (fault === 'values') {
    throw Object.assign(new Error(`Request body holds more than ${MAX_JSON_VALUES} values.`), {
      type: TOO_MANY_VALUES,
    });
  }
}
