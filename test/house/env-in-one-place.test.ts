/**
 * The rule of server/config.ts, checked on the source tree: it is the only module under server/ and main/ that
 * reads a SHEETPORT_* variable (everything else gets its settings passed down), and no test changes
 * `process.env` (tests build a config and pass it; a child process gets its own `env`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONFIG = 'server/config.ts';

/**
 * Files that read `process.env` for something that is not SheetPort's to configure: facts about the host that
 * the code asks where it needs them. None of them may read a SHEETPORT_* variable.
 */
const HOST_FACTS: Record<string, string> = {
  'server/cli/stop-with-parent.ts': 'npm_lifecycle_event: whether npm started the process',
  'server/cli/open-browser.ts': 'DISPLAY / WAYLAND_DISPLAY: whether a browser can open',
  'server/small-footprint.ts': 'NODE_OPTIONS: the heap flags the process was given',
  'main/index.ts':
    'XDG_CONFIG_HOME and APPIMAGE: where the login item goes and what it starts (main/login-item.ts)',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mts|cts)$/.test(e.name))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

/** `file:line: text` for each line of `files` that `pattern` matches. */
function offending(files: string[], pattern: RegExp): string[] {
  return files.flatMap((file) =>
    readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('configuration is read in server/config.ts only', () => {
  const outside = [...sourceFiles('server'), ...sourceFiles('main')].filter((f) => f !== CONFIG);

  it('finds the files it checks', () => {
    expect(outside.length).toBeGreaterThan(100);
    expect(outside).toContain('server/context.ts');
    expect(outside).toContain('main/index.ts');
  });

  it('no other file reads a SHEETPORT_* variable, from process.env or from an env object passed in', () => {
    // process.env.SHEETPORT_X, env.SHEETPORT_X, env?.SHEETPORT_X, env['SHEETPORT_X'], env[SOME_ENV] (a name constant).
    const reads =
      /\benv\??\.\s*SHEETPORT_|\benv\??\.?\[\s*['"`]SHEETPORT_|\benv\??\.?\[\s*[A-Z][A-Z_]*_ENV\b/;
    expect(offending(outside, reads)).toEqual([]);
  });

  it('reads process.env elsewhere only for host facts, each listed with its reason', () => {
    const readers = outside.filter((f) => /\bprocess\.env\b/.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(readers.sort()).toEqual(Object.keys(HOST_FACTS).sort());
  });
});

describe('tests do not change process.env', () => {
  const tests = sourceFiles('test');

  it('finds the files it checks', () => {
    expect(tests).toContain('test/helpers/harness.ts');
  });

  it('no test assigns, deletes or stubs a variable of its own process', () => {
    const changes =
      /\bprocess\.env(\.\w+|\[[^\]]+\])?\s*(=(?!=)|\+=|\?\?=|\|\|=)|\bdelete\s+process\.env\b|Object\.assign\(\s*process\.env\b|\bvi\.stubEnv\b/;
    expect(offending(tests, changes)).toEqual([]);
  });
});
