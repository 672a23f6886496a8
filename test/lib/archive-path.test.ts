/**
 * The path mapping between the packed tray app's archive and the folder of unpacked files beside it, on real
 * folders (test/main/asar-package.test.ts runs it on a real package): only a `.asar` path segment is mapped,
 * only to a twin that exists, both path separators, and `file:` URLs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { packedPath, unpackedPath, unpackedUrl } from '../../server/lib/archive-path.ts';

const resources = mkdtempSync(path.join(os.tmpdir(), 'sheetport-archive-path-'));
afterAll(() => rmSync(resources, { recursive: true, force: true }));
const archive = path.join(resources, 'app.asar');
const unpacked = path.join(resources, 'app.asar.unpacked');
mkdirSync(path.join(unpacked, 'dist'), { recursive: true });
writeFileSync(path.join(unpacked, 'dist', 'worker.js'), '');
// Stands for the archive itself, a file; what it holds is asked of `inArchive` as Electron's fs would answer.
writeFileSync(archive, '');
const inArchive = new Set([path.join(archive, 'package.json')]);
const exists = (file: string) => inArchive.has(file) || file.startsWith(unpacked);

describe('archive paths', () => {
  it('maps a file inside app.asar to its unpacked twin, and leaves it when there is none', () => {
    expect(unpackedPath(path.join(archive, 'dist', 'worker.js'))).toBe(
      path.join(unpacked, 'dist', 'worker.js'),
    );
    expect(unpackedPath(path.join(archive, 'dist', 'missing.js'))).toBe(
      path.join(archive, 'dist', 'missing.js'),
    );
    expect(unpackedUrl(pathToFileURL(path.join(archive, 'dist', 'worker.js'))).href).toBe(
      pathToFileURL(path.join(unpacked, 'dist', 'worker.js')).href,
    );
  });

  it('leaves every other path alone: a checkout, an already unpacked path, names that only look alike', () => {
    for (const file of [
      path.join(unpacked, 'dist', 'worker.js'),
      '/home/me/sheetport/server/lib/x.ts',
      '/apps/my.asarx/dist/worker.js',
      '/apps/app.asar',
    ])
      expect(unpackedPath(file, () => true)).toBe(file);
    expect(unpackedUrl(new URL('https://example.com/app.asar/x')).href).toBe(
      'https://example.com/app.asar/x',
    );
  });

  it('understands Windows separators', () => {
    expect(unpackedPath('C:\\SheetPort\\resources\\app.asar\\dist\\w.js', () => true)).toBe(
      'C:\\SheetPort\\resources\\app.asar.unpacked\\dist\\w.js',
    );
    expect(packedPath('C:\\SheetPort\\resources\\app.asar.unpacked\\package.json', () => true)).toBe(
      'C:\\SheetPort\\resources\\app.asar\\package.json',
    );
  });

  it('maps an unpacked path back into the archive when the archive holds it', () => {
    expect(packedPath(path.join(unpacked, 'package.json'), exists)).toBe(path.join(archive, 'package.json'));
    expect(packedPath(path.join(unpacked, 'docs', 'none.json'), exists)).toBe(
      path.join(unpacked, 'docs', 'none.json'),
    );
  });
});
