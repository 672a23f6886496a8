/**
 * The platform's "open this URL" program (`sheetport dashboard`, `sheetport login`), and whether it worked.
 */
import { spawn } from 'node:child_process';

/** How long an "open this URL" program may run before we take it that the browser started. */
const OPENER_GRACE_MS = 3000;

export type BrowserOutcome = { opened: true } | { opened: false; reason: string };

/**
 * The platform's "open this URL" program, and whether it worked: no display to show a browser on (Linux and the
 * BSDs without DISPLAY or WAYLAND_DISPLAY), a program that is missing or ends with a failure, is "not opened".
 */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<BrowserOutcome> {
  const platform = process.platform;
  if (platform !== 'darwin' && platform !== 'win32' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return Promise.resolve({ opened: false, reason: 'no display (DISPLAY and WAYLAND_DISPLAY are not set)' });
  }
  const [command, args] =
    platform === 'darwin'
      ? ['open', [url]]
      : platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: BrowserOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(grace);
      child.unref();
      resolve(outcome);
    };
    const child = spawn(command, args as string[], { stdio: 'ignore', detached: true, env });
    // Some openers stay in the foreground with the browser they started: still running means it started.
    const grace = setTimeout(() => settle({ opened: true }), OPENER_GRACE_MS);
    child.on('error', (err) => settle({ opened: false, reason: `${command}: ${err.message}` }));
    child.on('exit', (code, signal) =>
      settle(
        code === 0
          ? { opened: true }
          : { opened: false, reason: `${command} failed (${signal ?? `exit ${code}`})` },
      ),
    );
  });
}
