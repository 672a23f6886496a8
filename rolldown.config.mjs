/**
 * The `sheetport` command's bundle (`npm run build`, after tsc): the compiled server in dist/server/ gathered into
 * a few files in dist/bundle/, which bin/sheetport.js runs when installed. A start then loads a few dozen files of
 * SheetPort's own instead of some 300, about 150 ms sooner to its first answer (docs/performance.md). npm packages
 * stay outside, loaded from node_modules as before. The tray app runs dist/server/ itself (electron-builder.yml).
 *
 * Every file lands in one folder, named after its entry: the worker threads' scripts sit beside the code that starts
 * them, where lib/archive-path.ts `workerScriptUrl` looks, and files found from a module's place (the dashboard,
 * package.json) are two folders up, as from dist/server/.
 */
import path from 'node:path';

export default {
  input: {
    cli: 'dist/server/cli.js',
    'small-footprint-first': 'dist/server/small-footprint-first.js',
    'stop-with-parent': 'dist/server/cli/stop-with-parent.js',
    'parse-worker': 'dist/server/sources/workbook/guard/parse-worker.js',
    'piece-thread': 'dist/server/sources/workbook/ooxml/piece-thread.js',
    'csv-part-thread': 'dist/server/sources/workbook/csv-part-thread.js',
    'kept-segments-thread': 'dist/server/sources/workbook/guard/kept-segments-thread.js',
  },
  platform: 'node',
  // Only SheetPort's own modules are bundled: packages (and Node's own) are imported from where they are installed.
  // An own module is named by a relative path, or once resolved by an absolute one (`C:\...` on Windows too).
  external: (id) => !id.startsWith('.') && !path.isAbsolute(id),
  output: {
    dir: 'dist/bundle',
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunk-[name]-[hash].js',
  },
};
