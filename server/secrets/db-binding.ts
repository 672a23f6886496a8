/**
 * The secrets a database was opened with. store/db.ts's openDatabase binds them, so a store built over that
 * database finds its SecretBox without every caller threading it through (store/sqlite-repositories.ts's
 * `sqliteRepositoriesOver(db, dataDir)`). The database is only a key here: any object the store hands out as its handle.
 */
import type { SecretBox } from './at-rest.ts';
import type { SecretsProvider } from './provider.ts';

export interface DatabaseSecrets {
  box: SecretBox;
  provider: SecretsProvider;
}

const bound = new WeakMap<object, DatabaseSecrets>();

export function bindSecrets(db: object, secrets: DatabaseSecrets): void {
  bound.set(db, secrets);
}

export function secretsOf(db: object): DatabaseSecrets {
  const secrets = bound.get(db);
  if (!secrets) throw new Error('this database was not opened with openDatabase(), so it has no data key');
  return secrets;
}
