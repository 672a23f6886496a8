/**
 * The service under fuzzing, in a process of its own (so a crash or a stall is seen, not shared): started as
 * `sheetport serve` starts it, on the data dir the parent prepared, with the real rate limits. Tells the parent
 * its URL and admin token over IPC, and logs its own failures to stderr, which the parent keeps.
 */
import '../../server/small-footprint-first.ts';
import { readConfig, startServer } from '../../server/index.ts';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: serve-target.ts <data dir>');

const service = await startServer({
  dataDir,
  // Secrets in the data dir's file, so the fuzzer can follow an admin-token rotation it made.
  config: { ...readConfig(), secrets: 'file' },
  port: 0,
  host: '127.0.0.1',
  log: (message, err) => console.error(message, err ?? ''),
});
process.send?.({ url: service.url, adminToken: service.adminToken });
const stop = () => void service.stop().finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('disconnect', stop);
