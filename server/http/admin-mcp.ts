/**
 * `POST /admin/mcp-config`: what `sheetport mcp config` prints, for the dashboard and the tray. A new API key of
 * the scope asked for (the key itself is in this answer and nowhere else, as with `POST /admin/keys`) and the
 * snippets that add SheetPort to each MCP client (mcp/client-config.ts): the stdio command on this server's data
 * dir, and this server's own `/mcp` as the Streamable HTTP form.
 */
import { AppError } from '../errors.ts';
import { sheetportLaunch } from '../lib/sheetport-command.ts';
import { adminKeyJson } from '../limits/key-json.ts';
import { MCP_KEY_NAME, mcpClientConfigs, mcpCommandArgs } from '../mcp/client-config.ts';
import { KEY_SCOPES, type KeyScope } from '../repositories/keys.ts';
import { adminBody } from './admin.ts';
import type { AppDeps } from './deps.ts';
import type { RouteTable } from './route-table.ts';

export function mountAdminMcpRoutes(
  routes: RouteTable,
  deps: Pick<AppDeps, 'keys' | 'usage' | 'now' | 'dataDir'>,
): void {
  routes.post('/admin/mcp-config', 'admin', async (req, res) => {
    const body = adminBody(req.body ?? {}, ['scope', 'name']);
    const scope = body.scope ?? 'read';
    if (typeof scope !== 'string' || !(KEY_SCOPES as readonly string[]).includes(scope)) {
      throw new AppError('invalid_body', `"scope" must be one of ${KEY_SCOPES.join(', ')}.`, {
        field: 'scope',
      });
    }
    const name = body.name ?? MCP_KEY_NAME;
    if (typeof name !== 'string')
      throw new AppError('invalid_body', '"name" must be a string.', { field: 'name' });
    const { record, key } = await deps.keys.create({ name, scope: scope as KeyScope });
    const configs = mcpClientConfigs({
      stdio: sheetportLaunch(mcpCommandArgs(deps.dataDir)),
      key,
      // The admin surface answers on loopback only (admin.ts), so the Host the caller used reaches this server.
      httpUrl: `http://${req.headers.host}/mcp`,
    });
    const shown = await adminKeyJson(record, deps.usage, deps.now());
    res.status(201).json({ ...shown, key, data_dir: deps.dataDir, configs });
  });
}
