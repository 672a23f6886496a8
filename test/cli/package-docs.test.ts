/**
 * The installable package's documents: every link between the Markdown files `npm pack` ships (the README
 * first, which npm always includes) points at a file the package ships too, so an installed copy's README is
 * whole. The file list is npm's own (`npm pack --dry-run`, without the build: links never point into dist/).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function packedFiles(): Set<string> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const [pack] = JSON.parse(out) as { files: { path: string }[] }[];
  return new Set(pack!.files.map((f) => f.path));
}

/** Relative link targets in a Markdown file (links and images), without their #fragment. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'))
    .map((target) => target.split('#')[0]!);
}

describe('the packed package', () => {
  it('ships every file its Markdown files link to', () => {
    const files = packedFiles();
    const markdown = [...files].filter((f) => f.endsWith('.md'));
    expect(markdown).toContain('README.md');
    const missing: string[] = [];
    for (const doc of markdown) {
      for (const target of relativeLinks(fs.readFileSync(path.join(ROOT, doc), 'utf8'))) {
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(doc), target));
        if (!files.has(resolved)) missing.push(`${doc} -> ${target}`);
      }
    }
    expect(missing).toEqual([]);
  }, 60_000);
});
