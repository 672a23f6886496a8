/**
 * The one place that knows what SheetPort's secrets look like, so nothing shaped like one is written to the data
 * dir (logs, SQLite) or echoed back: every log line, request id, logged URL and error message goes through
 * `redactSecrets`. A new kind of secret is one line in SECRET_SHAPES.
 *
 * Shapes are found as written and percent-decoded (once or more: `sp%5F...`, `sp%255F...`), since a client may
 * put a key in a query or a path segment in either form.
 */

/** Every secret SheetPort hands out, by shape. Each pattern is global and matches the whole secret. */
export const SECRET_SHAPES: readonly RegExp[] = [
  // An API key (`sp_`) or the admin token (`spa_`): 32 random bytes in base64url (store/api-keys.ts,
  // store/admin-token.ts); a dashboard sign-in code (`spc_`) or session (`sps_`): random base64url
  // (http/admin-access.ts). Shorter runs are matched too, so a truncated key is hidden as well.
  /sp[acs]?_[A-Za-z0-9_-]{20,}/g,
  // A webhook signing secret: `whsec_` + 32 random bytes in base64 (webhooks/secret.ts).
  /whsec_[A-Za-z0-9+/]{20,}={0,2}/g,
];

/**
 * Query parameter names whose values are never written, whatever the value looks like: a client puts keys,
 * tokens and one-use codes in URLs under names like these.
 */
export const SECRET_PARAMETER_NAME = /key|token|secret|code|pass|pwd|auth|sig|cred|session|cookie/i;

export const REDACTED = '[redacted]';

/** How many layers of percent-encoding are looked through (`%255F` is `%5F` is `_`). */
const DECODE_ROUNDS = 3;
/** A run of text that holds a percent escape and no URL delimiter: decoded and checked as one. */
const ENCODED_RUN = /[^\s"'<>\\/?&=#;,]*%[0-9A-Fa-f]{2}[^\s"'<>\\/?&=#;,]*/g;

function replaceShapes(text: string): string {
  let out = text;
  for (const shape of SECRET_SHAPES) out = out.replace(shape, REDACTED);
  return out;
}

/** Percent escapes decoded where they form valid UTF-8; anything else is left as it is. */
function percentDecode(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (escapes) => {
    try {
      return decodeURIComponent(escapes);
    } catch {
      return escapes;
    }
  });
}

/** The run with every layer of encoding that hides a secret looked through; `null` when it hides none. */
function redactEncodedRun(run: string): string | null {
  let current = run;
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    const decoded = percentDecode(current);
    if (decoded === current) return null;
    const redacted = replaceShapes(decoded);
    // Written decoded: re-encoding could not recreate the client's own spelling anyway.
    if (redacted !== decoded) return redacted;
    current = decoded;
  }
  return null;
}

/** `text` with everything shaped like a SheetPort secret, plain or percent-encoded, written `[redacted]`. */
export function redactSecrets(text: string): string {
  const plain = replaceShapes(text);
  if (!plain.includes('%')) return plain;
  return plain.replace(ENCODED_RUN, (run) => redactEncodedRun(run) ?? run);
}

/** Whether `text` holds anything shaped like a SheetPort secret (plain or percent-encoded). */
export function holdsSecret(text: string): boolean {
  return redactSecrets(text) !== text;
}

/**
 * A query parameter's value as it may be written: `[redacted]` when the name says it is a secret, else the
 * value with any secret-shaped part hidden. `name` is checked decoded (`api%5Fkey` is `api_key`).
 */
export function redactParameter(name: string, value: string): string {
  const decodedName = percentDecode(name.replace(/\+/g, ' '));
  return SECRET_PARAMETER_NAME.test(decodedName) ? REDACTED : redactSecrets(value);
}
