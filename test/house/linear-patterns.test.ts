/**
 * A house rule checked on the source tree: no regular expression literal under server/ can take super-linear
 * time (docs/architecture.md, "Rules of the house": anything that runs on input is linear). Each literal is read
 * from the source by a real parser (oxc, through vite's `parseSync`) and analysed by scslre, the static analysis
 * behind eslint-plugin-regexp's `no-super-linear-backtracking` and `no-super-linear-move`: two unbounded runs that
 * can trade characters (`\d+\.?\d*`), a run that can reach itself (`(a+)+`), and a run tried again from every
 * position of a text it fails on (`[^/]*%[0-9A-F]{2}` over 40,000 characters without a delimiter took seconds).
 *
 * Its limit, said plainly: it finds attack texts that repeat one character, not those that repeat a longer
 * piece (`<f<f<f...` against `<f\b[^>]*>`). Patterns built at run time (`new RegExp(...)`) are not seen either.
 * Such patterns in the OOXML engine run on a workbook's own XML, where every `<` starts a tag that ends at its
 * `>` (cell text is written escaped); the event-loop budget test (test/http/event-loop-budget.test.ts) covers the
 * request paths end to end. scslre takes well under a second for the whole tree, where recheck, the complete
 * analyser, took about 30 s of CPU for it: too slow for the suite.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RegExpParser } from '@eslint-community/regexpp';
import { analyse } from 'scslre';
import { parseSync } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Literal {
  file: string;
  line: number;
  text: string;
}

/** Every node of an ESTree program, depth first. */
function* nodes(node: unknown): Generator<Record<string, unknown>> {
  if (Array.isArray(node)) {
    for (const child of node) yield* nodes(child);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  if (typeof record.type === 'string') yield record;
  for (const [key, value] of Object.entries(record)) if (key !== 'parent') yield* nodes(value);
}

/** The regular expression literals of each TypeScript file below `dir` (`file` relative to `dir`). */
function regexLiterals(dir: string): Literal[] {
  const found: Literal[] = [];
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter(
    (e) => e.isFile() && /\.(ts|tsx|mts|cts)$/.test(e.name),
  );
  for (const entry of files) {
    const file = path.join(entry.parentPath, entry.name);
    const source = readFileSync(file, 'utf8');
    const { program, errors } = parseSync(file, source);
    if (errors.length > 0) throw new Error(`${file} does not parse: ${errors[0]?.message}`);
    for (const node of nodes(program)) {
      const regex = node.regex as { pattern: string; flags: string } | undefined;
      if (node.type !== 'Literal' || !regex) continue;
      found.push({
        file: path.relative(dir, file).split(path.sep).join('/'),
        line: source.slice(0, node.start as number).split('\n').length,
        text: `/${regex.pattern}/${regex.flags}`,
      });
    }
  }
  return found;
}

/** `file:line /pattern/flags: kinds` for each literal scslre finds super-linear. */
function superLinear(literals: readonly Literal[]): string[] {
  const parser = new RegExpParser();
  return literals.flatMap((literal) => {
    const { reports } = analyse(parser.parseLiteral(literal.text), { maxReports: 3 });
    if (reports.length === 0) return [];
    const kinds = reports.map(
      (r) => `${r.type}${r.exponential ? ' (exponential)' : ''} on ${JSON.stringify(r.character.pick)}`,
    );
    return [`${literal.file}:${literal.line} ${literal.text}: ${kinds.join(', ')}`];
  });
}

describe('no regular expression literal under server/ takes super-linear time', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'sheetport-patterns-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('the scan names the quadratic patterns of a nested file and passes linear ones', () => {
    mkdirSync(path.join(scratch, 'deep'), { recursive: true });
    writeFileSync(
      path.join(scratch, 'deep/bad.ts'),
      [
        "// /a+a+/ in a comment is no literal, nor is '/\\\\d+\\\\d+/' in a string",
        'export const ENCODED_RUN = /[^\\s/?&=]*%[0-9A-Fa-f]{2}[^\\s/?&=]*/g;',
        'export const NUMBER = /^[+-]?(\\d+\\.?\\d*|\\.\\d+)$/;',
        'export const RUN = (s: string) => s.split(/[^\\s/?&=]+/g);',
        '',
      ].join('\n'),
    );
    writeFileSync(path.join(scratch, 'good.ts'), 'export const N = /^[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)$/;\n');
    const literals = regexLiterals(scratch);
    expect(literals.map((l) => `${l.file}:${l.line}`).sort()).toEqual([
      'deep/bad.ts:2',
      'deep/bad.ts:3',
      'deep/bad.ts:4',
      'good.ts:1',
    ]);
    const found = superLinear(literals);
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/^deep\/bad\.ts:2 .*: Move/);
    expect(found[1]).toMatch(/^deep\/bad\.ts:3 .*: Trade/);
  });

  const server = regexLiterals(path.join(ROOT, 'server'));

  it('finds the literals it checks', () => {
    const literals = server;
    expect(literals.length).toBeGreaterThan(150);
    expect(literals.some((l) => l.file === 'lib/redact-secrets.ts')).toBe(true);
  });

  it('server/ has none', () => {
    expect(superLinear(server)).toEqual([]);
  });
});
