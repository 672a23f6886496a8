/**
 * `npm run fuzz -- --seconds 600 [--seed N] [--requests N] [--release]`: the fuzzer for as long as asked, before
 * a release. `--release` sends inputs up to the service's limits (5 MB texts, deep nesting near the body limit).
 * Prints the findings, grouped, and exits 1 when there are any.
 */
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { RELEASE_SCALE, SUITE_SCALE } from './hostile-values.ts';
import { fuzz } from './run.ts';
import { startTarget } from './target.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    requests: { type: 'string', default: String(Number.MAX_SAFE_INTEGER) },
    release: { type: 'boolean', default: false },
    trace: { type: 'string' },
  },
});

const seed = Number(values.seed);
const target = await startTarget();
console.log(`fuzzing ${target.base.href} for ${values.seconds} s, seed ${seed}`);
try {
  const report = await fuzz(target, {
    seed,
    requests: Number(values.requests),
    seconds: Number(values.seconds),
    scale: values.release ? RELEASE_SCALE : SUITE_SCALE,
    slowMs: 1000,
    progress: (line) => console.log(line),
    trace: values.trace ? (line) => appendFileSync(values.trace!, `${line.slice(0, 2000)}\n`) : undefined,
  });
  console.log(`${report.requests} requests; statuses ${JSON.stringify(report.statuses)}`);
  for (const f of report.findings)
    console.log(`\n${f.where}: ${f.problem} (x${f.count})\n  e.g. ${f.example}`);
  console.log(
    report.findings.length === 0 ? '\nno findings' : `\n${report.findings.length} findings (seed ${seed})`,
  );
  if (report.findings.some((f) => /answered 5|exited/.test(f.problem)))
    console.log(`\nthe service's log:\n${target.serverLog()}`);
  process.exitCode = report.findings.length === 0 ? 0 : 1;
} finally {
  await target.stop();
}
