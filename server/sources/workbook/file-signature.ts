/**
 * The cheap change token of a file on disk: equal signatures mean the same content. mtime and size change with
 * every save in place, the inode with every save by rename (Excel, LibreOffice, scripts, sync clients).
 */
import type { Stats } from 'node:fs';

export function signatureOf(st: Pick<Stats, 'mtimeMs' | 'size' | 'ino'>): string {
  return `${st.mtimeMs}:${st.size}:${st.ino}`;
}
