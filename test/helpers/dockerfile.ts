/**
 * The Dockerfile read as Docker reads it, for the suites that check it without a container engine
 * (test/house/deploy-files.test.ts, image-runtime.test.ts): instructions per stage, exec-form arguments, pinned
 * image references.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

export interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions: comments dropped, `\` continuations joined, split at each FROM into stages. */
export function dockerfileStages(
  text = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'),
): Instruction[][] {
  const logical = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const stages: Instruction[][] = [];
  for (const line of logical) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

/** An exec-form argument list (`["node", "x"]`), or null for the shell form. */
export function execForm(args: string): string[] | null {
  try {
    const parsed = JSON.parse(args) as unknown;
    return Array.isArray(parsed) && parsed.every((a) => typeof a === 'string') ? parsed : null;
  } catch {
    return null;
  }
}

/** An image reference pinned to a version: a tag with a digit in it (`node:22.23.3-bookworm-slim`), never latest. */
export function pinned(image: string): boolean {
  const tag = /^[^@\s]+:([^/@\s]+)$/.exec(image)?.[1];
  return tag !== undefined && tag !== 'latest' && /\d/.test(tag);
}

/** `ENV A=1 B=2` lines of a stage as one record (the `KEY=value` form only, which the Dockerfile uses). */
export function stageEnv(stage: readonly Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of stage.filter((s) => s.keyword === 'ENV'))
    for (const [, name = '', value = ''] of i.args.matchAll(/(\w+)=(\S*)/g)) env[name] = value;
  return env;
}

/** A stage's `COPY` lines: the sources (paths in the stage copied from) and the destination. */
export function copies(
  stage: readonly Instruction[],
): { from: string | null; sources: string[]; dest: string }[] {
  return stage
    .filter((i) => i.keyword === 'COPY')
    .map((i) => {
      const words = i.args.split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length) ?? null;
      const paths = words.filter((w) => !w.startsWith('--'));
      return { from, sources: paths.slice(0, -1), dest: paths.at(-1) ?? '' };
    });
}
