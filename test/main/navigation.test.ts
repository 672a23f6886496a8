import { describe, expect, it } from 'vitest';
import {
  dashboardUrl,
  isExternalLinkAllowed,
  isPermissionAllowed,
  navigationDecision,
} from '../../main/navigation.ts';

const PORT = 8787;

describe('dashboard window navigation', () => {
  it('lets the window move only within the dashboard at its own origin', () => {
    expect(navigationDecision('http://127.0.0.1:8787/ui/', PORT)).toBe('allow');
    expect(navigationDecision('http://127.0.0.1:8787/ui/#/keys', PORT)).toBe('allow');
    expect(navigationDecision('http://127.0.0.1:8787/ui', PORT)).toBe('allow');
  });

  it('refuses the service’s other paths, other ports, look-alike hosts and paths', () => {
    expect(navigationDecision('http://127.0.0.1:8787/admin/keys', PORT)).toBe('deny');
    expect(navigationDecision('http://127.0.0.1:8787/api/spreadsheets', PORT)).toBe('deny');
    expect(navigationDecision('http://127.0.0.1:8787/uix/', PORT)).toBe('deny');
    expect(navigationDecision('http://127.0.0.1:8787/ui/../admin', PORT)).toBe('deny'); // URL parsing resolves ..
    // Another local server is not the dashboard: it goes to the system browser like any other site.
    expect(navigationDecision('http://127.0.0.1:9999/ui/', PORT)).toBe('external');
    expect(navigationDecision('http://localhost:8787/ui/', PORT)).toBe('external');
  });

  it('sends http(s) links elsewhere to the system browser and refuses every other scheme', () => {
    expect(navigationDecision('https://github.com/sheetport', PORT)).toBe('external');
    expect(navigationDecision('http://example.com/', PORT)).toBe('external');
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<script>1</script>',
      'smb://host/share',
      'vscode://open',
      'not a url',
    ])
      expect(navigationDecision(url, PORT)).toBe('deny');
  });

  it('never hands a link with credentials to the system browser', () => {
    expect(isExternalLinkAllowed('https://user:pw@example.com/')).toBe(false);
    expect(isExternalLinkAllowed('https://example.com/docs')).toBe(true);
  });

  it('puts a sign-in code, never the admin token, in the fragment of the dashboard URL', () => {
    const url = new URL(dashboardUrl(PORT, 'spc_co/de+1'));
    expect(url.origin).toBe('http://127.0.0.1:8787');
    expect(url.pathname).toBe('/ui/');
    expect(url.search).toBe('');
    expect(decodeURIComponent(url.hash)).toBe('#code=spc_co/de+1');
  });

  it('refuses web permissions except clipboard writes from the dashboard', () => {
    expect(isPermissionAllowed('clipboard-sanitized-write', 'http://127.0.0.1:8787/ui/', PORT)).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://example.com/', PORT)).toBe(false);
    expect(isPermissionAllowed('clipboard-read', 'http://127.0.0.1:8787/ui/', PORT)).toBe(false);
    expect(isPermissionAllowed('media', 'http://127.0.0.1:8787/ui/', PORT)).toBe(false);
    expect(isPermissionAllowed('notifications', 'http://127.0.0.1:8787/ui/', PORT)).toBe(false);
  });
});
