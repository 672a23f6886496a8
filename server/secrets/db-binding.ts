/**
 * The secrets a database was opened with. openDatabase binds them, so a store built over that database finds
 * its SecretBox without every caller threading it through (`new WebhookStore(db)` keeps working).
 */
import type Database from 'better-sqlite3';
import type { SecretBox } from './at-rest.ts';
import type { SecretsProvider } from './provider.ts';

export interface DatabaseSecrets {
  box: SecretBox;
  provider: SecretsProvider;
}

const bound = new WeakMap<Database.Database, DatabaseSecrets>();

export function bindSecrets(db: Database.Database, secrets: DatabaseSecrets): void {
  bound.set(db, secrets);
}

export function secretsOf(db: Database.Database): DatabaseSecrets {
  const secrets = bound.get(db);
  if (!secrets) throw new Error('this database was not opened with openDatabase(), so it has no data key');
  return secrets;
}
