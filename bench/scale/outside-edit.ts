/**
 * Another program's save, as editors save: the new content is written to a temporary file beside the served
 * one and renamed over it. Timed from the rename until the server answers the changed cell.
 */
import { copyFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { EDITED_VALUE } from './cache.ts';
import type { ServerUnderTest } from './server.ts';
import { sleep } from './timing.ts';

/** Ms until `server` shows `edited`'s changed cell once it is renamed over `server.file`; NaN after `timeoutMs`. */
export async function outsideEditVisible(
  server: ServerUnderTest,
  edited: string,
  timeoutMs = 600_000,
): Promise<number> {
  if (!server.file) return Number.NaN;
  const temp = path.join(path.dirname(server.file), `.${path.basename(server.file)}.saving`);
  copyFileSync(edited, temp);
  const started = performance.now();
  renameSync(temp, server.file);
  while (performance.now() - started < timeoutMs) {
    try {
      if ((await server.editedCell()) === EDITED_VALUE) return performance.now() - started;
    } catch {
      // a read that fails while the file is being re-read: ask again
    }
    await sleep(20);
  }
  return Number.NaN;
}
