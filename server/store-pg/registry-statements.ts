import type { Queryable } from './pool.ts';
import type { PgRegistry } from './registry.ts';
import type { AfterCommit } from './transactional.ts';

/**
 * What the statements of a registry table (connections, keys, webhooks) hold once bound to a connection or a
 * transaction: where they run, the work for after its commit (the registry's cache dropped, NOTIFY sent), and
 * the registry that work goes to.
 */
export abstract class RegistryStatements {
  protected readonly db: Queryable;
  protected readonly after: AfterCommit;
  protected readonly registry: PgRegistry;

  constructor(db: Queryable, after: AfterCommit, registry: PgRegistry) {
    this.db = db;
    this.after = after;
    this.registry = registry;
  }
}
