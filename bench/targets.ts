/**
 * The benches' target servers: each runs in a child process of its own (forked from a bench/*-server.ts file)
 * and says `ready` over IPC; the load is generated in the parent. Also the one reader of the benches' numeric
 * settings from the environment.
 */
import { type ChildProcess, fork } from 'node:child_process';
import type { ChildMessage, ReadyMessage } from './protocol.ts';

export interface Target {
  child: ChildProcess;
  ready: ReadyMessage;
}

/** A positive number from the environment, or `fallback` when unset; anything else stops the bench. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

/** Forks a target server (a file beside this one) and waits up to `timeoutMs` for its `ready` message. */
export function startTarget(
  file: string,
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<Target> {
  const child = fork(new URL(file, import.meta.url), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`${file} did not start within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited before it was ready (code ${code}, signal ${signal})`));
    };
    child.once('exit', onExit);
    child.once('message', (message: ChildMessage) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      if (message.type === 'ready') resolve({ child, ready: message });
      else {
        child.kill('SIGTERM');
        reject(
          new Error(`${file} failed to start:\n${message.type === 'failed' ? message.error : message.type}`),
        );
      }
    });
  });
}

/** Stops a target (SIGTERM, then SIGKILL after 10 s) and resolves once it has exited. */
export function stopTarget(target: Target): Promise<void> {
  return new Promise((resolve) => {
    if (target.child.exitCode !== null || target.child.signalCode !== null) return resolve();
    const timer = setTimeout(() => target.child.kill('SIGKILL'), 10_000);
    target.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    target.child.kill('SIGTERM');
  });
}

/** Ask the target for a number: its CPU time so far, or the limiter's own cost per request (µs). */
export function askTarget(target: Target, question: 'cpu' | 'limiter-cost'): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: ChildMessage) => {
      if (m.type !== question) return;
      target.child.off('message', onMessage);
      resolve(m.micros);
    };
    target.child.on('message', onMessage);
    target.child.send({ type: `${question}?` });
  });
}
