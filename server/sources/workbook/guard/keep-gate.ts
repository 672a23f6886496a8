/**
 * Whether a parse thread may still keep its read (kept-read.ts), shared between it and the service's thread
 * through one word of shared memory: the thread keeps only while the gate is open, and a file that closes (its
 * service stopping) shuts the gate, then waits for a keep already under way. So nothing of a closed file is
 * written into the data dir afterwards (a stopped service's folder can be moved or removed at once), and a
 * close waits for one file's write at most, never for a parse.
 */
const OPEN = 0;
const SHUT = 1;
const KEEPING = 2;
const DONE = 3;

/** Node 22 has it (ES2024); the project's TypeScript library stops before ES2024. */
const { waitAsync } = Atomics as unknown as {
  waitAsync(array: Int32Array, index: number, value: number): { value: Promise<string> | string };
};

export class KeepGate {
  /** Given to the parse thread with its job. */
  readonly shared = new Int32Array(new SharedArrayBuffer(4));

  /** No keep starts after this; resolves once a keep under way has ended. */
  async shut(): Promise<void> {
    if (Atomics.compareExchange(this.shared, 0, OPEN, SHUT) !== KEEPING) return;
    await waitAsync(this.shared, 0, KEEPING).value;
  }
}

/** The parse thread's side: `keep` runs unless the gate was shut first, and the gate says when it has ended. */
export async function keepThrough(gate: Int32Array, keep: () => Promise<void>): Promise<void> {
  if (Atomics.compareExchange(gate, 0, OPEN, KEEPING) !== OPEN) return;
  try {
    await keep();
  } finally {
    Atomics.store(gate, 0, DONE);
    Atomics.notify(gate, 0);
  }
}
