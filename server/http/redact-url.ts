/**
 * The request URL as the request log keeps it: without anything that works as a credential. API keys travel in
 * the Authorization header, which is never logged, but clients also put them in URLs (`?api_key=`, `?token=`), so
 * the value of any query parameter whose name says "secret" is replaced, and anything shaped like a SheetPort
 * secret is replaced wherever it appears, percent-encoded or not (lib/redact-secrets.ts). The userKey in `/api`
 * paths stays: it is not a credential (every request needs a key), and the database beside the log holds it in
 * plain text anyway.
 */
import { redactParameter, redactSecrets } from '../lib/redact-secrets.ts';

/** A line stays readable and bounded whatever the client sent. */
const MAX_LENGTH = 2048;

/** The last URL redacted and its answer: a client polling one URL is logged without redacting it again. */
let lastUrl = '';
let lastRedacted = '';

export function redactUrl(url: string): string {
  if (url !== lastUrl) {
    lastRedacted = redacted(url);
    lastUrl = url;
  }
  return lastRedacted;
}

function redacted(url: string): string {
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
            if (eq === -1) return redactSecrets(pair);
            const value = redactParameter(pair.slice(0, eq), pair.slice(eq + 1));
            return `${redactSecrets(pair.slice(0, eq))}=${value}`;
          })
          .join('&')}`;
  const safe = `${redactSecrets(pathPart)}${safeQuery}`;
  // Cut after redacting, so a secret is never cut in two and half of it kept.
  return safe.length > MAX_LENGTH ? `${safe.slice(0, MAX_LENGTH)}…` : safe;
}
