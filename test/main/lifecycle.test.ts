/** The lifecycle over a fake server handle (the real one is exercised in pause-sync.test.ts). */
import { describe, expect, it } from 'vitest';
import { type AppState, Lifecycle, type ServerHandle } from '../../main/lifecycle.ts';

function fakeServer(options: { stopMs?: number; tunnelError?: string } = {}) {
  const calls: string[] = [];
  let paused = false;
  const handle: ServerHandle = {
    url: 'http://127.0.0.1:8787',
    port: 8787,
    async pauseSync() {
      calls.push('pause');
      paused = true;
    },
    resumeSync() {
      calls.push('resume');
      paused = false;
    },
    status: () => ({ syncPaused: paused }),
    async openTunnel() {
      calls.push('open-tunnel');
      return options.tunnelError
        ? { url: null, error: options.tunnelError }
        : { url: 'https://abc.ngrok.app', error: null };
    },
    async closeTunnel() {
      calls.push('close-tunnel');
    },
    signInCode: () => 'spc_fake',
    rotateAdminToken() {
      calls.push('rotate-admin-token');
    },
    stop: () =>
      new Promise<void>((resolve) => {
        calls.push('stop');
        setTimeout(resolve, options.stopMs ?? 0);
      }),
  };
  return { handle, calls };
}

describe('lifecycle', () => {
  it('starts once, reporting each state change', async () => {
    const { handle } = fakeServer();
    const states: AppState['phase'][] = [];
    let starts = 0;
    const life = new Lifecycle({
      start: async () => {
        starts++;
        return handle;
      },
      onChange: (s) => states.push(s.phase),
    });
    await Promise.all([life.start(), life.start()]);
    expect(starts).toBe(1);
    expect(states).toEqual(['starting', 'running']);
    expect(life.state).toMatchObject({ url: 'http://127.0.0.1:8787', port: 8787, syncPaused: false });
  });

  it('keeps a start failure for the tray instead of throwing', async () => {
    const life = new Lifecycle({
      start: async () => {
        throw new Error('listen EADDRINUSE: address already in use 127.0.0.1:8787');
      },
    });
    await life.start();
    expect(life.state.phase).toBe('failed');
    expect(life.state.startError).toMatch(/EADDRINUSE/);
    await life.pauseSync(); // nothing to pause: no error
    expect(await life.stop()).toBe('drained');
  });

  it('pauses and resumes through the handle, once each', async () => {
    const { handle, calls } = fakeServer();
    const life = new Lifecycle({ start: async () => handle });
    await life.start();
    await life.toggleSync();
    await life.pauseSync();
    expect(life.state.syncPaused).toBe(true);
    await life.toggleSync();
    life.resumeSync();
    expect(life.state.syncPaused).toBe(false);
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('opens and closes the tunnel through the handle; off by default and again after a stop', async () => {
    const { handle, calls } = fakeServer();
    const life = new Lifecycle({ start: async () => handle });
    await life.openTunnel(); // not running yet: nothing to open
    await life.start();
    expect(life.state).toMatchObject({ tunnel: 'off', tunnelUrl: null });
    const opening = life.toggleTunnel();
    expect(life.state.tunnel).toBe('starting');
    await Promise.all([opening, life.openTunnel()]); // a second open while opening does nothing
    expect(life.state).toMatchObject({ tunnel: 'open', tunnelUrl: 'https://abc.ngrok.app' });
    await life.toggleTunnel();
    expect(life.state).toMatchObject({ tunnel: 'off', tunnelUrl: null });
    await life.openTunnel();
    await life.stop();
    expect(life.state).toMatchObject({ phase: 'stopped', tunnel: 'off', tunnelUrl: null });
    expect(calls).toEqual(['open-tunnel', 'close-tunnel', 'open-tunnel', 'stop']);
  });

  it('a tunnel that does not open becomes the last error and leaves the server running', async () => {
    const { handle } = fakeServer({
      tunnelError: 'No tunnel authtoken is stored; set it with `sheetport tunnel token`',
    });
    const life = new Lifecycle({ start: async () => handle });
    await life.start();
    await life.openTunnel();
    expect(life.state).toMatchObject({ phase: 'running', tunnel: 'failed', tunnelUrl: null });
    expect(life.state.lastSyncError).toMatch(/sheetport tunnel token/);
    await life.openTunnel(); // a failed tunnel may be tried again
    expect(life.state.tunnel).toBe('failed');
  });

  it('notes the last error the service reported', async () => {
    const life = new Lifecycle({ start: async () => fakeServer().handle });
    life.noteError('Reading a source failed', new Error('EACCES: permission denied'));
    expect(life.state.lastSyncError).toBe('Reading a source failed: EACCES: permission denied');
  });

  it('quit waits for the drain, once, and reports stopped', async () => {
    const { handle, calls } = fakeServer({ stopMs: 30 });
    const phases: string[] = [];
    const life = new Lifecycle({ start: async () => handle, onChange: (s) => phases.push(s.phase) });
    await life.start();
    const [a, b] = await Promise.all([life.stop(), life.stop()]);
    expect([a, b]).toEqual(['drained', 'drained']);
    expect(calls).toEqual(['stop']);
    expect(phases.slice(-2)).toEqual(['stopping', 'stopped']);
  });

  it('quit gives up after the deadline so the app always exits', async () => {
    const { handle } = fakeServer({ stopMs: 5_000 });
    const life = new Lifecycle({ start: async () => handle, stopDeadlineMs: 20 });
    await life.start();
    const started = Date.now();
    expect(await life.stop()).toBe('deadline');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(life.state.phase).toBe('stopped');
  });

  it('a quit during start waits for the start, then stops the server it got', async () => {
    const { handle, calls } = fakeServer();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const life = new Lifecycle({
      start: async () => {
        await gate;
        return handle;
      },
    });
    void life.start();
    const stopping = life.stop();
    release();
    expect(await stopping).toBe('drained');
    expect(calls).toEqual(['stop']);
  });
});
