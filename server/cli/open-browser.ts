/** The platform's "open this URL" program, started and left alone; a failure only says so. */
import { spawn } from 'node:child_process';

export function openBrowser(url: string, onFailure: () => void): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', onFailure);
  child.unref();
}
