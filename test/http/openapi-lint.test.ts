/**
 * docs/openapi.json passes an independent OpenAPI linter: the installed Redocly CLI with its recommended rules
 * (redocly.yaml), no problem of any severity. Among those rules, every example must validate against its own
 * schema, so an example that drifts from the shapes the document declares fails here.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REDOCLY = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
const CONFIG = path.join(ROOT, 'redocly.yaml');
const DOC = path.join(ROOT, 'docs/openapi.json');

interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer: string }[];
}
interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: LintProblem[];
}

/** Runs `redocly lint --format=json`; it exits 1 when it finds errors, so the report is read either way. */
async function lint(file: string): Promise<LintReport> {
  const args = [REDOCLY, 'lint', file, `--config=${CONFIG}`, '--lint-config=error', '--format=json'];
  // Offline and quiet: no usage telemetry, no update check.
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  const run = promisify(execFile)(process.execPath, [...args, '--max-problems=1000'], { cwd: ROOT, env });
  const { stdout } = await run.catch((e: { stdout?: string; stderr?: string }) => {
    if (!e.stdout) throw new Error(`redocly lint did not report: ${e.stderr ?? String(e)}`);
    return { stdout: e.stdout };
  });
  return JSON.parse(stdout) as LintReport;
}

const summary = (report: LintReport) =>
  report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);

describe('redocly lint docs/openapi.json', () => {
  it('reports no error and no warning under the recommended rules', async () => {
    const report = await lint(DOC);
    expect(summary(report)).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  });

  describe('catches an example that drifts from its schema', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-openapi-lint-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('a misspelt error field, a code the status cannot carry, a row number as a string', async () => {
      const doc = JSON.parse(await readFile(DOC, 'utf8'));
      const examples = (name: string) => doc.components.responses[name].content['application/json'].examples;
      examples('BadRequest').invalid_parameter.value.error.paramter = 'limit';
      examples('Conflict').in_progress.value.error.code = 'locked';
      examples('RowNotFound').row.value.error.row = '5';
      const file = path.join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(doc, null, 2));

      const flagged = (await lint(file)).problems
        .filter((p) => p.ruleId === 'no-invalid-media-type-examples')
        .map((p) => p.location[0]?.pointer);
      expect(flagged).toEqual(
        expect.arrayContaining([
          '#/components/responses/BadRequest/content/application~1json/examples/invalid_parameter/value/error/paramter',
          '#/components/responses/Conflict/content/application~1json/examples/in_progress/value/error/code',
          '#/components/responses/RowNotFound/content/application~1json/examples/row/value/error/row',
        ]),
      );
    });
  });
});
