/**
 * A process that only sends webhook deliveries from a team database: the delivery worker of one instance over
 * PostgreSQL's outbox, for suites that kill it (SIGKILL) mid-flight. Run as
 * `node test/helpers/pg-delivery-worker.ts <database url> <claim ms>`; prints `ready` once it works.
 */
import type { Webhooks } from '../../server/repositories/webhooks.ts';
import { deliver } from '../../server/webhooks/sender.ts';
import { signedHeaders } from '../../server/webhooks/signer.ts';
import { DeliveryWorker } from '../../server/webhooks/worker.ts';
import { openChangeStores } from './change-stores.ts';

const [databaseUrl, claimMs] = process.argv.slice(2);
const stores = await openChangeStores('postgres', { databaseUrl: databaseUrl! });
const worker = new DeliveryWorker({
  deliveries: stores.deliveries,
  webhooks: stores.webhooks as Webhooks,
  now: Date.now,
  send: (attempt) => deliver({ ...attempt, allowLan: false }),
  sign: signedHeaders,
  claimMs: Number(claimMs),
});
worker.start();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void worker.stop().then(() => stores.close());
});
