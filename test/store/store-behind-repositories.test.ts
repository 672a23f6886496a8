/**
 * The rule of server/repositories/, checked on the source tree: routes, use cases and the CLI's commands depend on
 * the repository interfaces, and SQLite is store/'s business alone. No module outside server/store/ imports
 * better-sqlite3, no module under server/http/ imports a store/ module (types included), and the only other
 * modules that import store/ are the ones that wire the service (the context, the CLI's store opener).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The modules that open the SQLite implementation and hand its repositories down (or read it whole: export). */
const WIRING = [
  'server/context.ts',
  'server/cli/kit.ts',
  'server/cli/admin.ts',
  'server/cli/dashboard.ts',
  'server/cli/records.ts',
];

/** store/'s pure modules, which PostgreSQL's store (store-pg/) shares rather than copies: the baselines' format. */

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mts|cts)$/.test(e.name))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

/** Every module a file imports (static, type-only, re-exports and dynamic imports), as written. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const found = text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm);
  return [...found].map((m) => m[1] as string);
}

/** `file -> what` for each import of better-sqlite3 or of a server/store/ module, the store's path from server/. */
function storeImports(files: string[]): string[] {
  return files.flatMap((file) =>
    importsOf(file).flatMap((spec) => {
      if (spec === 'better-sqlite3') return [`${file} -> better-sqlite3`];
      if (!spec.startsWith('.')) return [];
      const target = path.posix.join(path.posix.dirname(file), spec);
      return target.startsWith('server/store/') ? [`${file} -> ${target.slice('server/'.length)}`] : [];
    }),
  );
}

describe('the store behind repository interfaces', () => {
  const outsideStore = [...sourceFiles('server'), ...sourceFiles('main')].filter(
    (f) => !f.startsWith('server/store/'),
  );

  it('finds the files it checks, and reads their imports', () => {
    expect(outsideStore.length).toBeGreaterThan(100);
    expect(outsideStore).toContain('server/http/auth.ts');
    expect(importsOf('server/store/db.ts')).toContain('better-sqlite3');
    expect(storeImports(['server/context.ts'])).toContain(
      'server/context.ts -> store/sqlite-repositories.ts',
    );
  });

  it('no module outside server/store/ imports better-sqlite3', () => {
    const users = storeImports(outsideStore).filter((i) => i.endsWith('-> better-sqlite3'));
    expect(users).toEqual([]);
  });

  it('no module under server/http/ imports server/store/, types included', () => {
    const http = outsideStore.filter((f) => f.startsWith('server/http/'));
    expect(storeImports(http)).toEqual([]);
  });

  it('outside the wiring, nothing else reaches into server/store/ either', () => {
    // store-pg/ follows the same rules as store/ by importing its pure modules (no better-sqlite3, checked above).
    const others = outsideStore.filter((f) => !WIRING.includes(f) && !f.startsWith('server/store-pg/'));
    const reaching = storeImports(others).filter((i) => !i.endsWith('-> better-sqlite3'));
    expect(reaching).toEqual([]);
  });

  it('store/ never imports store-pg/: the embedded default runs without PostgreSQL', () => {
    const store = sourceFiles('server/store');
    const reaching = store.flatMap((f) =>
      importsOf(f)
        .filter((spec) => path.posix.join(path.posix.dirname(f), spec).startsWith('server/store-pg/'))
        .map((spec) => `${f} -> ${spec}`),
    );
    expect(store.length).toBeGreaterThan(10);
    expect(reaching).toEqual([]);
  });

  it('each repository interface has its record types beside it, and store/ takes them from there', () => {
    const repositories = sourceFiles('server/repositories');
    expect(repositories).toEqual(
      expect.arrayContaining([
        'server/repositories/keys.ts',
        'server/repositories/connections.ts',
        'server/repositories/webhooks.ts',
        'server/repositories/deliveries.ts',
        'server/repositories/delivery-log.ts',
        'server/repositories/usage.ts',
        'server/repositories/idempotency.ts',
        'server/repositories/admin-token.ts',
        'server/repositories/index.ts',
        'server/repositories/change-log.ts',
        'server/repositories/baselines.ts',
      ]),
    );
    // A repository names no implementation: its interfaces and the storage rules written once above the two
    // databases (rules/) import nothing but each other, Node's built-ins, the cell values a source reads (what a
    // change and a baseline hold), and the base layer (errors, lib/, the secrets provider and sealing at rest).
    const base = [
      'server/sources/source.ts',
      'server/errors.ts',
      'server/secrets/provider.ts',
      'server/secrets/at-rest.ts',
    ];
    const reachingOut = repositories.flatMap((f) =>
      importsOf(f)
        .filter((spec) => {
          if (spec.startsWith('node:')) return false;
          const target = path.posix.join(path.posix.dirname(f), spec);
          return (
            !target.startsWith('server/repositories/') &&
            !target.startsWith('server/lib/') &&
            !base.includes(target)
          );
        })
        .map((spec) => `${f} -> ${spec}`),
    );
    expect(reachingOut).toEqual([]);
  });
});
