#!/usr/bin/env node
// The `sheetport` command. In a checkout it runs the TypeScript CLI directly (Node's type stripping); Node
// refuses to strip types under node_modules, so an installed copy runs the compiled build (`npm run build`).
const installed = import.meta.url.includes('/node_modules/');
const { main } = await import(installed ? '../dist/server/cli.js' : '../server/cli.ts');
process.exitCode = await main(process.argv.slice(2));
