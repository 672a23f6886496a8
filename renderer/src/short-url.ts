/**
 * A receiver URL short enough for a table cell that still tells two webhooks apart: the scheme dropped (the whole
 * URL is shown on hover), the host kept whole, and a long path cut in the middle, since the host and the path's
 * end (`/hooks/orders` vs `/hooks/stock`) are what differ between two receivers.
 */
export function shortTarget(url: string, maxPath = 24): { host: string; path: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { host: '', path: elideMiddle(url, maxPath) };
  }
  const path = `${parsed.pathname === '/' ? '' : parsed.pathname}${parsed.search}`;
  return { host: parsed.host, path: elideMiddle(path, maxPath) };
}

/** The short form on one line (`host/pa…th`), for a list option. */
export function shortUrl(url: string, maxPath = 24): string {
  const { host, path } = shortTarget(url, maxPath);
  return `${host}${path}`;
}

/** `text` cut to `max` characters with `…` in the middle, keeping more of the end, where names differ. */
function elideMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor((max - 1) / 3);
  const tail = max - 1 - head;
  return `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
}
