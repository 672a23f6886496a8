import type { TunnelStatus } from '../tunnel/provider.ts';
import type { RouteTable } from './route-table.ts';

/** What the tunnel forwards, whatever else the service serves. */
export const TUNNEL_PATHS = ['/api', '/v1', '/mcp'] as const;

/** An app without a tunnel switch (tests, a bare createApp): the tunnel is off. */
export const TUNNEL_OFF: TunnelStatus = { state: 'off', url: null, error: null, provider: 'ngrok' };

/** `GET /admin/tunnel`: the public tunnel's state and URL, for the dashboard (the tray reads the same status). */
export function mountAdminTunnelRoutes(routes: RouteTable, status: () => TunnelStatus): void {
  routes.get('/admin/tunnel', 'admin', (_req, res) => {
    res.json({ ...status(), exposes: TUNNEL_PATHS });
  });
}
