/** The admin token's form, the same whichever store keeps it (store/admin-token.ts, store-pg/admin-token.ts). */
import { randomBytes } from 'node:crypto';

/** A fresh admin token (256 random bits). */
export function newAdminToken(): string {
  return `spa_${randomBytes(32).toString('base64url')}`;
}
