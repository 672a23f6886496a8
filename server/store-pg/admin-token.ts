/**
 * The admin token in team mode: still one per instance (the dashboard and /admin are loopback-only on each), kept
 * in the instance's own data dir secrets provider, never in the shared database. Made under a lock file in the
 * data dir, so a server and a CLI starting together on one data dir agree on one token.
 */
import path from 'node:path';
import type { AdminTokens } from '../repositories/admin-token.ts';
import { newAdminToken } from '../repositories/rules/admin-token.ts';
import { withLockFile } from '../secrets/lock-file.ts';
import { SECRET_NAMES, type SecretsProvider } from '../secrets/provider.ts';

const LOCK_FILE_NAME = 'admin-token.lock';

export class LocalAdminTokens implements AdminTokens {
  /** The data dir's provider the token is kept in (`sheetport admin-token --json` names its kind). */
  readonly provider: SecretsProvider;
  readonly #lock: string;

  /** `provider`: the data dir's (secrets/choose.ts's openSecretsProvider). */
  constructor(provider: SecretsProvider, dataDir: string) {
    this.provider = provider;
    this.#lock = path.join(dataDir, LOCK_FILE_NAME);
  }

  loadOrCreate(): string {
    const existing = this.provider.get(SECRET_NAMES.adminToken);
    if (existing) return existing;
    return withLockFile(this.#lock, () => {
      const again = this.provider.get(SECRET_NAMES.adminToken);
      if (again) return again;
      const token = newAdminToken();
      this.provider.set(SECRET_NAMES.adminToken, token);
      return token;
    });
  }

  rotate(): string {
    return withLockFile(this.#lock, () => {
      const token = newAdminToken();
      this.provider.set(SECRET_NAMES.adminToken, token);
      return token;
    });
  }
}
