/**
 * PostgreSQL's side of the storage rules' transactions (repositories/rules/transactional.ts): a rule runs inside
 * one transaction on one pooled connection (pool.ts `tx`, retried on a serialization failure), its statements
 * bound to that connection and awaited one after another. What must wait for the commit (an instance's caches
 * dropped, its view of the registry read again) is handed to `after`, run once the transaction committed.
 */
import {
  type Rule,
  runAwaiting,
  type Transactional,
  type TransactionOptions,
} from '../repositories/rules/transactional.ts';
import { type Pool, type Queryable, tx } from './pool.ts';

/** Runs `work` once what the statement wrote is committed: at once outside a transaction, else after it. */
export type AfterCommit = (work: () => Promise<void> | void) => Promise<void>;

/** Statements bound to a connection: the pool (each statement on its own) or a transaction's client. */
export type Bind<S> = (db: Queryable, after: AfterCommit) => S;

const atOnce: AfterCommit = async (work) => {
  await work();
};

export function pgTransactional<S>(pool: Pool, bind: Bind<S>): Transactional<S> {
  const statements = bind(pool, atOnce);
  return {
    statements,
    run: (rule) => runAwaiting(rule(statements)),
    async transaction<T>(rule: (s: S) => Rule<T>, options: TransactionOptions = {}): Promise<T> {
      let after: (() => Promise<void> | void)[] = [];
      const result = await tx(pool, async (client) => {
        after = []; // a transaction run again after a serialization failure starts afresh
        if (options.lock) await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [options.lock]);
        return runAwaiting(rule(bind(client, async (work) => void after.push(work))));
      });
      for (const work of after) await work();
      return result;
    },
  };
}
