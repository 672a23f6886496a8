/**
 * `npm start` runs the demo as npm -> sh -c -> node. npm passes a SIGTERM on to the shell, and the shell exits
 * without passing it on, which would leave the server running with no parent. So a demo started by an npm
 * script watches its parent and, once that is gone (the process is handed to another parent), stops itself
 * the way SIGTERM stops it. Only under npm: a server started from a shell with `nohup ... &` is meant to outlive
 * that shell.
 */
const CHECK_EVERY_MS = 500;

/**
 * The parent as it was when this module loaded: bin/sheetport.js imports it first, since loading the rest of the
 * program takes seconds, time enough for the parent to go before anyone would look.
 */
const parentAtStart = process.ppid;

/** True when an npm script (`npm start`, `npm run ...`) started this process. */
export function startedByNpmScript(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.npm_lifecycle_event !== undefined;
}

/** Call `onOrphaned` once, when the process that started this one has exited. */
export function whenParentExits(onOrphaned: () => void, everyMs = CHECK_EVERY_MS): void {
  const parent = parentAtStart;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onOrphaned();
  }, everyMs);
  // The check never keeps the process alive by itself.
  timer.unref();
}
