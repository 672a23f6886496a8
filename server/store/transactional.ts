/**
 * SQLite's side of the storage rules' transactions (repositories/rules/transactional.ts): a rule runs inside one
 * IMMEDIATE transaction (the write lock taken up front, so what it reads stays true until it commits), driven
 * to its end synchronously: better-sqlite3 answers every statement at once, and nothing else can run meanwhile.
 */
import type Database from 'better-sqlite3';
import { type Rule, runAtOnce, type Transactional } from '../repositories/rules/transactional.ts';

export function sqliteTransactional<S>(db: Database.Database, statements: S): Transactional<S> {
  const run = db.transaction((rule: (s: S) => Rule<unknown>) => runAtOnce(rule(statements)));
  return {
    statements,
    async run<T>(rule: (s: S) => Rule<T>): Promise<T> {
      return runAtOnce(rule(statements));
    },
    async transaction<T>(rule: (s: S) => Rule<T>): Promise<T> {
      return run.immediate(rule) as T;
    },
  };
}
