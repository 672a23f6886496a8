/**
 * Long computations over a tab, written once as generators that `yield` where other work may run: a request that
 * can wait runs them paced (`runPaced`: the event loop gets a turn whenever a run of steps has held it for a few
 * milliseconds), a caller that must decide within its turn runs them through (`runNow`). A step reads at most
 * STEP_ROWS rows, so no step holds the loop for long, whatever the tab's size.
 */
import { pacer } from './pacer.ts';

export type Steps<T> = Generator<void, T, void>;

/** Rows one step reads at most (a few milliseconds of the simplest passes, at 1M rows a 32nd of the tab). */
export const STEP_ROWS = 32_768;

/** `(i & STEP_MASK) === STEP_MASK` once every STEP_ROWS: where a loop yields. */
export const STEP_MASK = STEP_ROWS - 1;

export function runNow<T>(steps: Steps<T>): T {
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/** Paced by pacer.ts: the event loop gets a turn once a run of steps has held it for a slice. */
export async function runPaced<T>(steps: Steps<T>): Promise<T> {
  const pace = pacer();
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    const turn = pace();
    if (turn) await turn;
  }
}
