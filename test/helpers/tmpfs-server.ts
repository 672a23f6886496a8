/**
 * A real `sheetport serve` whose data dir is a small tmpfs, to meet a real full disk. The server runs in a mount
 * namespace of its own (`unshare --mount`; for a user other than root also a user namespace, `--user
 * --map-root-user`, where any user may mount a tmpfs), so nothing is mounted on the machine itself and nothing
 * is left mounted if the test dies. The data dir prepared beforehand (keys, connections) is
 * copied onto the tmpfs at start; the test reaches the tmpfs through `/proc/<pid>/root`, which shows the
 * server's mounts. Linux only (CI and the development machines are Linux).
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { startServe } from './cli.ts';

export interface TmpfsServer {
  url: string;
  child: ChildProcess;
  /** Everything the server printed on stderr so far. */
  stderr(): string;
  /** `name` inside the data dir, as the test process reaches it (through the server's mount namespace). */
  inDataDir(name: string): string;
  /** Fill the tmpfs to the last byte with `<data dir>/filler`; returns the bytes written. */
  fill(): number;
  /** Remove the filler: the space is back. */
  free(): void;
  alive(): boolean;
  stop(): Promise<void>;
}

export async function startTmpfsServer(
  dataDir: string,
  sizeMb: number,
  env: Record<string, string> = {},
): Promise<TmpfsServer> {
  const script =
    'set -e; D="$1"; shift; cp -a "$D" "$D.seed"; mount -t tmpfs -o size=' +
    `${sizeMb}m tmpfs "$D"; cp -a "$D.seed/." "$D/"; chmod 700 "$D"; exec "$@"`;
  // Root (CI) has the right to mount in a mount namespace of its own; another user gets it in a user namespace.
  const namespaces = process.getuid?.() === 0 ? ['--mount'] : ['--user', '--map-root-user', '--mount'];
  // Its stderr (the full disk's errors) is for the test to read, not for the test's output.
  const wrap = ['unshare', ...namespaces, 'sh', '-c', script, 'sh', dataDir];
  const server = await startServe(dataDir, { wrap, env, quiet: true });
  const { child, url } = server;
  const pid = child.pid!;
  const inDataDir = (name: string) => path.join(`/proc/${pid}/root`, dataDir, name);
  const filler = inDataDir('filler');
  return {
    url,
    child,
    stderr: server.stderr,
    inDataDir,
    fill() {
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(1024 * 1024);
      let written = 0;
      try {
        // Big chunks first, then smaller ones: the file system is full to its last page.
        for (let size = chunk.length; size >= 512; size /= 2) {
          for (;;) {
            try {
              written += writeSync(fd, chunk, 0, size);
            } catch (e) {
              if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break;
              throw e;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
      return written;
    },
    free() {
      rmSync(filler, { force: true });
    },
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      await server.stop('SIGTERM');
    },
  };
}
