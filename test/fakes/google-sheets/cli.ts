// npm run fake:google -- --port P [--strict-auth] [--seed book.xlsx ...]
// Starts the fake and prints one JSON line: {"url", "spreadsheets":[{"file","id","title","tabs"}]}.
import { parseArgs } from 'node:util';
import { seedWorkbook } from './seed.ts';
import { startFakeGoogle } from './server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', multiple: true, default: [] },
    'strict-auth': { type: 'boolean', default: false },
  },
});

const fake = await startFakeGoogle({
  port: Number(values.port),
  host: values.host,
  strictAuth: values['strict-auth'],
});
const spreadsheets = [];
for (const file of values.seed ?? []) spreadsheets.push({ file, ...(await seedWorkbook(fake.store, file)) });
console.log(JSON.stringify({ url: fake.url, spreadsheets }));

const stop = () => {
  fake.close().finally(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
