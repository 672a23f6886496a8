/**
 * The benches that start `sheetport` measure the compiled build, as an installed copy (npm, the tray app) runs
 * it. In a checkout bin/sheetport.js runs the TypeScript source, and Node's type stripping gives every thread its
 * own compiler: about 30 MB and 0.3 s more for the service's thread and for each worker thread, which no user of
 * an installed copy pays. The build is made fresh first (`npm run build`, a few seconds). BENCH_FROM_SOURCE=1
 * measures the source instead.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
let built = false;

/** What to add to the environment of a `sheetport` child so it runs the build (made now, once a run). */
export function builtCliEnv(): Record<string, string> {
  if (process.env.BENCH_FROM_SOURCE === '1') return {};
  if (!built) {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    built = true;
  }
  return { SHEETPORT_FROM_BUILD: '1' };
}

/** How the runs' `sheetport` is run, for the report's header. */
export function cliMode(): string {
  return process.env.BENCH_FROM_SOURCE === '1'
    ? 'SheetPort from its TypeScript source (BENCH_FROM_SOURCE=1)'
    : 'SheetPort from its compiled build (dist/, as an installed copy runs)';
}
