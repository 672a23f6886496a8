/**
 * The cheap change token of a file on disk: equal signatures mean the same content. mtime and size change with
 * every save in place, the inode with every save by rename (Excel, LibreOffice, scripts, sync clients).
 */
import { type Stats, statSync } from 'node:fs';
import { fileError } from './lock.ts';

export function signatureOf(st: Pick<Stats, 'mtimeMs' | 'size' | 'ino'>): string {
  return `${st.mtimeMs}:${st.size}:${st.ino}`;
}

/** The size and inode a signature was made of. */
export function partsOfSignature(signature: string): { size: number; inode: number } {
  const [, size, inode] = signature.split(':');
  return { size: Number(size), inode: Number(inode) };
}

/** The cheap change token: equal signatures mean the same file content (mtime, size and inode). */
export async function statSignature(filePath: string): Promise<string> {
  try {
    // Synchronous: a stat of a cached inode takes microseconds, a thread-pool round trip far longer.
    return signatureOf(statSync(filePath));
  } catch (e) {
    throw fileError(e, filePath);
  }
}
