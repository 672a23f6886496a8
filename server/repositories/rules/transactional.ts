/**
 * How the storage rules run over either database. A rule is written once, as a generator: it calls a statement
 * of the database and hands its answer to `yield* settled(...)`, which gives it back settled. SQLite's statements
 * answer at once (better-sqlite3 is synchronous), so its runner drives the generator to the end inside one
 * synchronous transaction, where nothing else can run; PostgreSQL's answer with a promise, which its runner
 * awaits inside its transaction. docs/architecture.md ("The storage rules") says why this shape.
 */

/** What a statement answers: at once (SQLite), or later (PostgreSQL). */
export type Answer<T> = T | Promise<T>;

/** A storage rule run inside a transaction: it yields each statement's answer and is given it back settled. */
export type Rule<T> = Generator<unknown, T, unknown>;

/** A statement's answer, settled: `const found = yield* settled(s.byId(id))`. */
export function* settled<T>(answer: Answer<T>): Generator<unknown, T, unknown> {
  // The runner hands back exactly what was yielded, settled: the cast holds by construction.
  return (yield answer) as T;
}

export interface TransactionOptions {
  /** Runs beside no other transaction naming the same key (PostgreSQL: an advisory lock; SQLite's write lock
   * already puts every transaction after the other). */
  lock?: string;
}

/** One database's statements for a family of records: each on its own, or several in one transaction. */
export interface Transactional<S> {
  /** The statements outside any transaction, each committed on its own. */
  readonly statements: S;
  /** Runs `rule` over the statements each on its own, in no transaction (reads that need no snapshot). */
  run<T>(rule: (s: S) => Rule<T>): Promise<T>;
  /** Runs `rule` in one transaction over the statements bound to it: committed when it returns, rolled back
   * when it throws (its error is the answer). */
  transaction<T>(rule: (s: S) => Rule<T>, options?: TransactionOptions): Promise<T>;
}

/** SQLite's runner: every answer is there at once, so the rule runs to its end without a pause. */
export function runAtOnce<T>(rule: Rule<T>): T {
  let step = rule.next();
  while (!step.done) {
    if (step.value instanceof Promise) {
      // A statement that answers later would let other work into the open transaction.
      throw new Error('a statement answered with a promise inside a synchronous transaction');
    }
    step = rule.next(step.value);
  }
  return step.value;
}

/** PostgreSQL's runner: each answer awaited; a statement that fails fails the rule where it yielded. */
export async function runAwaiting<T>(rule: Rule<T>): Promise<T> {
  let step = rule.next();
  while (!step.done) {
    let answer: unknown;
    try {
      answer = await step.value;
    } catch (err) {
      step = rule.throw(err);
      continue;
    }
    step = rule.next(answer);
  }
  return step.value;
}
