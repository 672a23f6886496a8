/**
 * The one secrets provider of a data dir (CLI, `serve` and the app alike): named secrets kept either in the OS
 * keychain or in a 0600 file in the data dir. Which one is chosen once per data dir and recorded (choose.ts).
 * Synchronous, like the rest of the storage layer: reads happen at start and on rare admin actions.
 */
import { AppError } from '../errors.ts';

/** 'database': team mode's secrets, sealed in the shared PostgreSQL database (store-pg/secrets.ts). */
export type SecretsKind = 'keychain' | 'file' | 'database';

export interface SecretsProvider {
  readonly kind: SecretsKind;
  /** Where the secrets live, for messages ("the OS keychain", or the file's path). */
  readonly where: string;
  /** The value, or null when no secret has that name. */
  get(name: string): string | null;
  set(name: string, value: string): void;
  /** True when a secret was removed, false when there was none. */
  delete(name: string): boolean;
}

/** The names SheetPort uses today; later ones follow the same rule. */
export const SECRET_NAMES = {
  adminToken: 'admin-token',
  /** The AES-256 key that encrypts webhook secrets and stored idempotent answers in SQLite (at-rest.ts). */
  dataKey: 'data-key',
  /** The tunnel provider's (ngrok's) authtoken: `sheetport tunnel token` stores it, opening the tunnel reads it. */
  tunnelAuthtoken: 'tunnel-authtoken',
} as const;

/** The longest secret name: a keychain account name must stay short. */
export const MAX_SECRET_NAME = 128;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

/**
 * Names become keychain account names and JSON keys: keep them plain. A name that breaks this rule is a bug in
 * the code that made it (hence internal_error): a name built from what a client sent is made to fit first, as
 * google/tokens.ts does for an account.
 */
export function checkSecretName(name: string): void {
  if (!NAME.test(name)) {
    throw new AppError('internal_error', `Invalid secret name "${name}" (letters, digits, . _ : @ - only).`);
  }
}
