#!/usr/bin/env node
// The `sheetport` command. In a checkout it runs the TypeScript CLI directly (Node's type stripping); Node
// refuses to strip types under node_modules, and an installed package ships only the compiled build (`dist/`,
// made by `npm run build`, which `npm pack` runs first), so anywhere else it runs that build.
import { existsSync } from 'node:fs';

const source = new URL('../server/cli.ts', import.meta.url);
const compiled = new URL('../dist/server/cli.js', import.meta.url);
const fromSource = !import.meta.url.includes('/node_modules/') && existsSync(source);
if (!fromSource && !existsSync(compiled)) {
  process.stderr.write(
    'error: this copy of SheetPort has no compiled build (dist/); run `npm run build` first.\n',
  );
  process.exit(1);
}
const { main } = await import(fromSource ? source.href : compiled.href);
process.exitCode = await main(process.argv.slice(2));
