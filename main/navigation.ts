/**
 * Where the dashboard window may go. Only the dashboard itself (`http://127.0.0.1:<port>/ui/`) loads in the
 * window; an http(s) link elsewhere opens in the system browser; anything else (file:, data:, javascript:,
 * custom schemes, the API or admin paths of the service) is refused.
 */
export type NavigationDecision = 'allow' | 'external' | 'deny';

export function dashboardOrigin(port: number): string {
  return `http://127.0.0.1:${port}`;
}

/**
 * The dashboard with a one-use sign-in code (good for a minute) in the fragment, which is never sent to the
 * server; the page trades it for a session. The admin token itself never goes into a URL.
 */
export function dashboardUrl(port: number, signInCode: string): string {
  return `${dashboardOrigin(port)}/ui/#code=${encodeURIComponent(signInCode)}`;
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** True for a page of the dashboard at the app's own origin. */
export function isDashboardUrl(url: string, port: number): boolean {
  const target = parse(url);
  if (!target) return false;
  return (
    target.origin === dashboardOrigin(port) &&
    (target.pathname === '/ui' || target.pathname.startsWith('/ui/'))
  );
}

/** A link the system browser may open: http(s) only, with no credentials in it. */
export function isExternalLinkAllowed(url: string): boolean {
  const target = parse(url);
  if (!target) return false;
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return false;
  return target.username === '' && target.password === '';
}

export function navigationDecision(url: string, port: number): NavigationDecision {
  if (isDashboardUrl(url, port)) return 'allow';
  const target = parse(url);
  // The service's own other pages (API, admin, OpenAPI) are not for the window, and a browser holds no key.
  if (target && target.origin === dashboardOrigin(port)) return 'deny';
  return isExternalLinkAllowed(url) ? 'external' : 'deny';
}

/** Web permissions (camera, notifications, ...) are refused, except writing the clipboard from the dashboard
 * (its copy buttons). */
export function isPermissionAllowed(permission: string, requestingUrl: string, port: number): boolean {
  return permission === 'clipboard-sanitized-write' && isDashboardUrl(requestingUrl, port);
}
