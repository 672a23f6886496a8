/**
 * The tray's "Rotate admin token" and the dashboard window's sign-in, through the lifecycle over a real server
 * (startServer, as main/index.ts wires it) and the tray menu model: the window signs in with a one-use code, never
 * the token; a rotation ends the old token and the window's session, and a fresh code signs it in again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Lifecycle } from '../../main/lifecycle.ts';
import { dashboardUrl } from '../../main/navigation.ts';
import { type TrayModel, trayMenuTemplate } from '../../main/tray-menu.ts';
import { type RunningServer, startServer } from '../../server/index.ts';

let dir: string;
let lifecycle: Lifecycle | null = null;
afterEach(async () => {
  await lifecycle?.stop();
  lifecycle = null;
  await rm(dir, { recursive: true, force: true });
});

const noop = () => {};

async function signIn(url: string, code: string): Promise<{ status: number; session: string }> {
  const res = await fetch(`${url}/admin/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const body = (await res.json()) as { session?: string };
  return { status: res.status, session: body.session ?? '' };
}

const adminStatus = async (url: string, bearer: string) =>
  (await fetch(`${url}/admin/keys`, { headers: { Authorization: `Bearer ${bearer}` } })).status;

describe('the tray rotates the admin token of the running server', () => {
  it('ends the old token and the window session; a fresh code signs the window in again', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-tray-rotate-'));
    let server: RunningServer | null = null;
    const running = new Lifecycle({
      start: async () => {
        server = await startServer({
          dataDir: path.join(dir, 'data'),
          port: 0,
          host: '127.0.0.1',
          log: noop,
        });
        return server;
      },
    });
    lifecycle = running;
    await running.start();
    if (!server) throw new Error('server did not start');
    const service: RunningServer = server;
    const oldToken = service.adminToken;

    // The window's URL carries a code, not the token; the page trades it for a session.
    const windowCode = running.signInCode() ?? '';
    const url = dashboardUrl(service.port, windowCode);
    expect(url).not.toContain(oldToken);
    const windowSession = await signIn(service.url, windowCode);
    expect(windowSession.status).toBe(201);
    const unusedCode = running.signInCode() ?? '';

    const model: TrayModel = { ...running.state, launchAtLogin: false, launchAtLoginSupported: false };
    const items = trayMenuTemplate(model, {
      openDashboard: noop,
      copyApiUrl: noop,
      copyMcpConfig: noop,
      toggleSync: noop,
      toggleTunnel: noop,
      openLogs: noop,
      rotateAdminToken: () => running.rotateAdminToken(),
      setLaunchAtLogin: noop,
      quit: noop,
    });
    const rotate = items.find((i) => i.id === 'rotate-admin-token');
    if (!rotate) throw new Error('no Rotate admin token item');
    expect(rotate.enabled).toBe(true);
    // Electron calls click(menuItem, window, event); the model's handlers ignore the arguments.
    (rotate.click as () => void)();

    expect(service.adminToken).not.toBe(oldToken);
    expect(await adminStatus(service.url, oldToken)).toBe(401);
    expect(await adminStatus(service.url, windowSession.session)).toBe(401);
    expect((await signIn(service.url, unusedCode)).status).toBe(401);
    expect(await adminStatus(service.url, service.adminToken)).toBe(200);
    // What the glue does next: a fresh code for the window.
    const again = await signIn(service.url, running.signInCode() ?? '');
    expect(again.status).toBe(201);
    expect(await adminStatus(service.url, again.session)).toBe(200);
  });

  it('does nothing while no server runs', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-tray-rotate-'));
    const idle = new Lifecycle({ start: () => Promise.reject(new Error('not started')) });
    expect(idle.rotateAdminToken()).toBe(false);
    expect(idle.signInCode()).toBeNull();
  });
});
