/**
 * Command lines SheetPort prints for the user to paste (`npm start`, `serve`'s next steps). Each must work when
 * pasted as printed into a POSIX shell, whatever the current directory: values are quoted, and the CLI is named
 * the way it can be run from anywhere.
 */
import { fileURLToPath } from 'node:url';
import { runningFromSource } from '../lib/package-file.ts';

/** A word for a POSIX shell: as is when it holds nothing special, else single-quoted. */
export function shellQuote(value: string): string {
  if (/^[\w./:@%+=,-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * How to run the CLI against `dataDir`: `sheetport` when installed (it is on PATH), `node <checkout>/bin/sheetport.js`
 * in a checkout (where `sheetport` is not on PATH and `npx sheetport` works only inside the checkout).
 */
export function cliCommand(dataDir: string | null): string {
  const program = runningFromSource()
    ? `node ${shellQuote(fileURLToPath(new URL('../../bin/sheetport.js', import.meta.url)))}`
    : 'sheetport';
  return dataDir === null ? program : `${program} --data-dir ${shellQuote(dataDir)}`;
}

/** `export NAME=value ...` on one line. */
export function exportLine(vars: Record<string, string>): string {
  return `export ${Object.entries(vars)
    .map(([name, value]) => `${name}=${shellQuote(value)}`)
    .join(' ')}`;
}
