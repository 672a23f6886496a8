/**
 * A target server's CPU, for the benches: `BENCH_CPU_PROFILE=<file>` profiles the serving phase (started here,
 * written at cleanup), and the parent may ask the server for its CPU time so far (`cpu?` over IPC).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { ChildMessage } from './protocol.ts';

/** Starts profiling when BENCH_CPU_PROFILE names a file; the cleanup returned writes the profile, then runs `cleanup`. */
export async function profileServing(
  cleanup: () => Promise<void>,
  notes: string[],
): Promise<() => Promise<void>> {
  const profileFile = process.env.BENCH_CPU_PROFILE;
  if (!profileFile) return cleanup;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  notes.push(`CPU profile of the serving phase: ${profileFile}`);
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(profileFile, JSON.stringify(profile));
    session.disconnect();
    await cleanup();
  };
}

/** Answers the parent's `cpu?` with this process's CPU time so far (µs). */
export function answerCpuQuestions(send: (message: ChildMessage) => void): void {
  process.on('message', (m: { type?: string }) => {
    if (m.type === 'cpu?') {
      const { user, system } = process.cpuUsage();
      send({ type: 'cpu', micros: user + system });
    }
  });
}
