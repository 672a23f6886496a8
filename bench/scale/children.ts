/**
 * Every server the scale benchmark starts is tracked here and killed when the benchmark ends, however it ends:
 * normally, on an error, or on Ctrl-C (SIGINT) or SIGTERM. A run left behind would hold gigabytes of memory.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

const running = new Set<ChildProcess>();
const cleanups: (() => void)[] = [];

/** Track `child` until it exits. */
export function track(child: ChildProcess): ChildProcess {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Also run `cleanup` (synchronously) when the benchmark is interrupted, e.g. to remove a temp dir. */
export function onInterrupt(cleanup: () => void): void {
  cleanups.push(cleanup);
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the servers`);
    killAll();
    for (const cleanup of cleanups.splice(0)) {
      try {
        cleanup();
      } catch {
        // best effort: the process is going away
      }
    }
    process.exit(130);
  });
