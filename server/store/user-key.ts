/**
 * A connection's userKey: 144 random bits, URL-safe (base64url), and never starting with `-`, so that it can be
 * pasted as an argument (`sheetport connections remove <userKey>`) without being read as an option. Both stores
 * make them here.
 */
import { randomBytes } from 'node:crypto';

export function newUserKey(): string {
  for (;;) {
    const key = randomBytes(18).toString('base64url');
    if (!key.startsWith('-')) return key;
  }
}
