/**
 * The request URL as the request log keeps it: without anything that works as a credential. API keys travel in
 * the Authorization header, which is never logged, but clients also put them in URLs (`?api_key=`, `?token=`), so
 * the value of any query parameter whose name says "secret" is replaced, and anything shaped like a SheetPort API
 * key or admin token is replaced wherever it appears. The userKey in `/api` paths stays: it is not a credential
 * (every request needs a key), and the database beside the log holds it in plain text anyway.
 */

/** Query parameter names whose values are never logged. */
const SECRET_NAME = /key|token|secret|pass|pwd|auth|sig|cred|session|cookie/i;
/** A SheetPort API key (`sp_`) or admin token (`spa_`): 32 random bytes in base64url. */
const SHEETPORT_SECRET = /spa?_[A-Za-z0-9_-]{20,}/g;
const REDACTED = '[redacted]';
/** A line stays readable and bounded whatever the client sent. */
const MAX_LENGTH = 2048;

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const pathPart = url.slice(0, q === -1 ? url.length : q);
  const query = q === -1 ? null : url.slice(q + 1);
  const safeQuery =
    query === null
      ? ''
      : `?${query
          .split('&')
          .map((pair) => {
            const eq = pair.indexOf('=');
            if (eq === -1) return pair;
            return SECRET_NAME.test(decodeName(pair.slice(0, eq)))
              ? `${pair.slice(0, eq)}=${REDACTED}`
              : pair;
          })
          .join('&')}`;
  const safe = `${pathPart}${safeQuery}`.replace(SHEETPORT_SECRET, REDACTED);
  return safe.length > MAX_LENGTH ? `${safe.slice(0, MAX_LENGTH)}…` : safe;
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}
