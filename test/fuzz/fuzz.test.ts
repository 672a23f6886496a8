/**
 * A seeded fuzzing run through the real path (a `sheetport serve`-started service in its own process, real HTTP,
 * an .xlsx file openpyxl wrote and reads back): requests generated from docs/openapi.json for every operation,
 * valid and hostile, with and without keys. Asserted: no 5xx but the documented 502/503/507, every status and
 * JSON answer as the document says, no stack trace or path in an error, no answer slower than a second, every
 * acknowledged write read back as written (and every refused one changing nothing), the tab no request named
 * byte-identical, and the service up at the end. `npm run fuzz -- --seconds 600` runs longer before a release.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUITE_SCALE } from './hostile-values.ts';
import { fuzz } from './run.ts';
import { startTarget, type Target } from './target.ts';

const SEED = 20_261_128;
const REQUESTS = 4_000;

describe('the service under a seeded fuzzing run', () => {
  let target: Target;
  beforeAll(async () => {
    target = await startTarget();
  });
  afterAll(async () => {
    await target?.stop();
  });

  it(`answers ${REQUESTS} generated requests as documented, keeps every acknowledged write, and stays up`, async () => {
    const report = await fuzz(target, {
      seed: SEED,
      requests: REQUESTS,
      seconds: 240,
      scale: SUITE_SCALE,
      slowMs: 1_000,
    });
    const findings = report.findings.map(
      (f) => `${f.where}: ${f.problem} (x${f.count})\n  e.g. ${f.example}`,
    );
    expect(findings, target.serverLog().slice(-4_000)).toEqual([]);
    expect(report.requests).toBe(REQUESTS);
    expect(target.alive()).toBe(true);
    // The run reached deep: writes were acknowledged and refused, and the service answered every family.
    for (const status of ['200', '201', '400', '401', '404'])
      expect(report.statuses[status]).toBeGreaterThan(0);
  }, 300_000);
});
