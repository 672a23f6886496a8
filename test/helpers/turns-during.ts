/**
 * How many turns of the event loop ran while `work` was under way: a request waiting would have been answered in
 * each. Work done in one block on the thread lets none run.
 */
export async function turnsDuring(work: Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    await work;
  } finally {
    running = false;
  }
  return turns;
}
