/**
 * `npm run bench:compare -- DIR`: this checkout's read path against another checkout's (DIR, e.g. a worktree of
 * an older commit with its own node_modules), in the same run. Both servers start side by side (each its own
 * bench/sheetport-server.ts, on the same generated rows); the list case (b) and the search+sort case (c) of
 * `npm run bench:http` are then measured in alternating rounds (A-B-B-A, so drift hits both alike), each round
 * giving requests per second and the server's CPU time per request. The CPU per request is the steadier
 * number on a shared machine; the report gives the median of each and this checkout's ratio to DIR's.
 *
 * Environment: COMPARE_ROUNDS (default 6 A-B-B-A groups), COMPARE_SECONDS (per round, default 4),
 * BENCH_CONNECTIONS (default 10).
 */
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import type { ChildMessage, ReadyMessage } from './protocol.ts';

const other = process.argv[2] ?? '';
if (!other) {
  console.error('usage: node bench/compare-trees.ts DIR   (DIR: another checkout of SheetPort, installed)');
  process.exit(2);
}
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 6);
const SECONDS = Number(process.env.COMPARE_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const CASES = { list: 'list5k', search: 'search100k' } as const;

interface Target {
  name: string;
  child: ChildProcess;
  ready: ReadyMessage;
}

function start(name: string, checkout: string): Promise<Target> {
  const child = fork(path.join(checkout, 'bench', 'sheetport-server.ts'), [], {
    cwd: checkout,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited before it was ready (${code})`)));
    child.once('message', (m: ChildMessage) => {
      if (m.type === 'ready') resolve({ name, child, ready: m });
      else reject(new Error(`${name} failed to start: ${m.type === 'failed' ? m.error : m.type}`));
    });
  });
}

function cpuMicros(target: Target): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: ChildMessage) => {
      if (m.type !== 'cpu') return;
      target.child.off('message', onMessage);
      resolve(m.micros);
    };
    target.child.on('message', onMessage);
    target.child.send({ type: 'cpu?' });
  });
}

/** One round on one case: requests per second and the server's CPU per request (µs). */
async function round(target: Target, caseName: string): Promise<{ rps: number; cpu: number }> {
  const url = target.ready.url + target.ready.targets[caseName];
  const before = await cpuMicros(target);
  const result = await autocannon({
    url,
    headers: target.ready.headers,
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  const cpu = (await cpuMicros(target)) - before;
  if (result.errors > 0 || result.non2xx > 0)
    throw new Error(`${target.name} ${caseName}: errors in the round`);
  return { rps: result.requests.average, cpu: cpu / result.requests.total };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  const here = path.resolve(import.meta.dirname, '..');
  const a = await start('other', path.resolve(other));
  const b = await start('this', here);
  try {
    for (const caseName of Object.values(CASES)) {
      for (const t of [a, b]) await round(t, caseName); // warm-up
    }
    const results = new Map<string, { rps: number[]; cpu: number[] }>();
    for (let i = 0; i < ROUNDS; i++) {
      for (const t of [a, b, b, a]) {
        for (const caseName of Object.values(CASES)) {
          const r = await round(t, caseName);
          const key = `${t.name} ${caseName}`;
          const entry = results.get(key) ?? { rps: [], cpu: [] };
          entry.rps.push(r.rps);
          entry.cpu.push(r.cpu);
          results.set(key, entry);
        }
      }
    }
    console.log(
      `other: ${path.resolve(other)}; this: ${here}; ${ROUNDS} A-B-B-A groups of ${SECONDS} s rounds`,
    );
    console.log('case        other req/s  this req/s  ratio   other µs/req  this µs/req  ratio');
    for (const [label, caseName] of Object.entries(CASES)) {
      const o = results.get(`other ${caseName}`)!;
      const t = results.get(`this ${caseName}`)!;
      const rps = [median(o.rps), median(t.rps)] as const;
      const cpu = [median(o.cpu), median(t.cpu)] as const;
      console.log(
        `${label.padEnd(10)}  ${rps[0].toFixed(0).padStart(11)}  ${rps[1].toFixed(0).padStart(10)}  ${(rps[1] / rps[0]).toFixed(3)}` +
          `   ${cpu[0].toFixed(0).padStart(12)}  ${cpu[1].toFixed(0).padStart(11)}  ${(cpu[1] / cpu[0]).toFixed(3)}`,
      );
    }
  } finally {
    for (const t of [a, b]) t.child.kill('SIGTERM');
  }
}

await main();
