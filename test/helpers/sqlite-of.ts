/**
 * The SQLite database under a service, for suites that look inside it (raw SQL, triggers). Those suites are about
 * the embedded store; a service on PostgreSQL has none and fails here loudly.
 */
import type { ServiceContext } from '../../server/context.ts';
import type { SqliteDatabase } from '../../server/store/db.ts';
import type { SqliteRepositories } from '../../server/store/sqlite-repositories.ts';

export function sqliteOf(context: Pick<ServiceContext, 'store'>): SqliteDatabase {
  if (context.store.kind !== 'sqlite')
    throw new Error('this check reads SQLite: the service is on PostgreSQL');
  return (context.store as SqliteRepositories).db;
}
