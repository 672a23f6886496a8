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

/**
 * Where an encoded run ends: whitespace (as `\s` knows it) and the delimiters of URLs, headers and messages. A run
 * is a stretch of text between two of these; one that holds a percent escape is decoded and checked as one.
 */
const ASCII_DELIMITER = new Uint8Array(128);
for (const c of '\t\n\v\f\r "\'<>\\/?&=#;,') ASCII_DELIMITER[c.charCodeAt(0)] = 1;

function endsRun(code: number): boolean {
  if (code < 128) return ASCII_DELIMITER[code] === 1;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function isHexDigit(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

/** Whether `run` holds a percent escape (`%` and two hex digits). */
function holdsEscape(run: string): boolean {
  for (let at = run.indexOf('%'); at !== -1; at = run.indexOf('%', at + 1)) {
    if (isHexDigit(run.charCodeAt(at + 1)) && isHexDigit(run.charCodeAt(at + 2))) return true;
  }
  return false;
}

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

/**
 * `text` with each run that holds a percent escape and hides a secret replaced by its redaction. A scanner, not a
 * pattern: from each `%` it finds the run around it (back to the end of the run before, on to the next
 * delimiter), so every character is looked at a bounded number of times whatever the text (a pattern of two
 * unbounded runs around the escape tried again from every position, and took seconds on 40,000 characters).
 */
function redactEncodedRuns(text: string): string {
  let out = '';
  let copied = 0;
  let done = 0;
  for (let percent = text.indexOf('%'); percent !== -1; percent = text.indexOf('%', done)) {
    let start = percent;
    while (start > done && !endsRun(text.charCodeAt(start - 1))) start--;
    let end = percent + 1;
    while (end < text.length && !endsRun(text.charCodeAt(end))) end++;
    const run = text.slice(start, end);
    const redacted = holdsEscape(run) ? redactEncodedRun(run) : null;
    if (redacted !== null) {
      out += text.slice(copied, start) + redacted;
      copied = end;
    }
    done = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** `text` with everything shaped like a SheetPort secret, plain or percent-encoded, written `[redacted]`. */
export function redactSecrets(text: string): string {
  const plain = replaceShapes(text);
  return plain.includes('%') ? redactEncodedRuns(plain) : plain;
}

/**
 * `text` cut to at most `max` characters, as a bounded excerpt to redact: it never ends inside a run that goes on
 * past the cut, where the head of a secret could be too short to be recognised; the cut moves back to that run's
 * start (a run longer than the excerpt is left out whole). `…` marks a cut. Cheap whatever `text`'s length:
 * redact the excerpt, not the whole.
 */
export function excerpt(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max;
  if (!endsRun(text.charCodeAt(cut))) while (cut > 0 && !endsRun(text.charCodeAt(cut - 1))) cut--;
  return `${text.slice(0, cut)}…`;
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
