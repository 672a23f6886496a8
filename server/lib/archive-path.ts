import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * A packaged desktop app keeps its files in one archive (`resources/app.asar`) that only its main thread's
 * file functions can read. What must be a real file on disk (a worker thread's script and everything it
 * imports, files served as streams) is packed unpacked beside it, in `app.asar.unpacked/` at the same relative
 * path. These map a path inside such an archive to that twin; any other path, or one whose twin is not there,
 * is returned as it is, so a checkout and the installed CLI are unaffected.
 */
export function unpackedPath(file: string, exists: (file: string) => boolean = existsSync): string {
  const twin = file.replace(/\.asar(?=[\\/])/, '.asar.unpacked');
  return twin !== file && exists(twin) ? twin : file;
}

/** The other way: a path in `app.asar.unpacked/` to its place inside the archive, when that is there. */
export function packedPath(file: string, exists: (file: string) => boolean = existsSync): string {
  const packed = file.replace(/\.asar\.unpacked(?=[\\/])/, '.asar');
  return packed !== file && exists(packed) ? packed : file;
}

/**
 * A worker thread's script `name` beside the module at `moduleUrl`: from source (.ts, Node's type stripping) in
 * a checkout, as .js from the build, and from `app.asar.unpacked/` in the packaged tray app, since a worker
 * thread cannot be relied on to read the app's archive (electron-builder.yml unpacks the server).
 */
export function workerScriptUrl(name: string, moduleUrl: string): URL {
  return unpackedUrl(new URL(`./${name}${moduleUrl.endsWith('.ts') ? '.ts' : '.js'}`, moduleUrl));
}

/** unpackedPath for a `file:` URL (a module's or a worker's). */
export function unpackedUrl(url: URL, exists?: (file: string) => boolean): URL {
  if (url.protocol !== 'file:') return url;
  const file = fileURLToPath(url);
  const twin = unpackedPath(file, exists);
  return twin === file ? url : pathToFileURL(twin);
}
