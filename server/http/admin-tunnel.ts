import type { RouteTable } from './route-table.ts';

/** What the tunnel forwards, whatever else the service serves. */
export const TUNNEL_PATHS = ['/api', '/v1', '/mcp'] as const;

/**
 * The tunnel as `GET /admin/tunnel` shows it. Declared here, where it is answered: the wiring's tunnel status
 * (tunnel/provider.ts `TunnelStatus`) has this shape and is handed down as it is.
 */
export interface TunnelView {
  state: 'off' | 'starting' | 'open' | 'failed';
  url: string | null;
  error: string | null;
  provider: string;
}

/** An app without a tunnel switch (tests, a bare createApp): the tunnel is off. */
export const TUNNEL_OFF: TunnelView = { state: 'off', url: null, error: null, provider: 'ngrok' };

/** `GET /admin/tunnel`: the public tunnel's state and URL, for the dashboard (the tray reads the same status). */
export function mountAdminTunnelRoutes(routes: RouteTable, status: () => TunnelView): void {
  routes.get('/admin/tunnel', 'admin', (_req, res) => {
    res.json({ ...status(), exposes: TUNNEL_PATHS });
  });
}
