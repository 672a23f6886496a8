/**
 * A house rule checked on the source tree: no file under server/ is over 400 lines (docs/architecture.md, "Rules
 * of the house"). A file that grows past it holds more than one idea; split it by job. Functions have their own
 * limit (80 lines), which `npm run lint` checks through biome.json.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAX_LINES = 400;

/** Lines of a text as an editor numbers them: a final newline ends the last line, it does not start one. */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Each TypeScript file below `dir` (its path relative to `dir`, with `/`) and its line count. */
function sizes(dir: string): { file: string; lines: number }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mts|cts)$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .map((file) => ({
      file: path.relative(dir, file).split(path.sep).join('/'),
      lines: lineCount(readFileSync(file, 'utf8')),
    }));
}

/** `path (N lines)` for each TypeScript file below `dir` with more than `max` lines. */
function filesOver(dir: string, max: number): string[] {
  return sizes(dir)
    .filter(({ lines }) => lines > max)
    .map(({ file, lines }) => `${file} (${lines} lines)`)
    .sort();
}

describe(`no file under server/ is over ${MAX_LINES} lines`, () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'sheetport-sizes-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('the scan names a file one line over the limit, in a nested folder, and passes one at it', () => {
    mkdirSync(path.join(scratch, 'deep/er'), { recursive: true });
    const lines = (n: number) =>
      `${Array.from({ length: n }, (_, i) => `export const a${i} = ${i};`).join('\n')}\n`;
    writeFileSync(path.join(scratch, 'at-limit.ts'), lines(MAX_LINES));
    writeFileSync(path.join(scratch, 'deep/er/over.ts'), lines(MAX_LINES + 1));
    writeFileSync(path.join(scratch, 'notes.md'), lines(MAX_LINES + 50));
    expect(filesOver(scratch, MAX_LINES)).toEqual([`deep/er/over.ts (${MAX_LINES + 1} lines)`]);
  });

  it('finds the files it checks', () => {
    const files = sizes(path.join(ROOT, 'server')).map(({ file }) => file);
    expect(files.length).toBeGreaterThan(200);
    expect(files).toContain('index.ts');
    expect(files).toContain('sources/workbook/ooxml/sheet-scan.ts');
  });

  it('server/ has none', () => {
    expect(filesOver(path.join(ROOT, 'server'), MAX_LINES)).toEqual([]);
  });
});
