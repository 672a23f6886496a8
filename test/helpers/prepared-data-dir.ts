/**
 * A data dir made ready for a `sheetport serve` the test starts as its own process: secrets in a file (the OS
 * keychain is not the point, and the server may run in its own namespaces or as another user), the People
 * workbook beside it connected, and an unlimited read_write key. The context that prepared it is closed.
 */
import path from 'node:path';
import { createServiceContext } from '../../server/context.ts';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { openSecretsProvider } from '../../server/secrets/choose.ts';
import { connectFile, writePeopleWorkbook } from './fixtures.ts';

export interface PreparedDataDir {
  dataDir: string;
  /** The People workbook, in `dir` (beside the data dir, not in it). */
  book: string;
  connection: ConnectionRecord;
  key: string;
  adminToken: string;
}

export async function prepareDataDir(dir: string): Promise<PreparedDataDir> {
  const dataDir = path.join(dir, 'data');
  const book = await writePeopleWorkbook(dir);
  openSecretsProvider(dataDir, { env: { SHEETPORT_SECRETS: 'file' } });
  const setup = createServiceContext({ dataDir, log: () => {} });
  const connection = await connectFile(setup.connections, book);
  const { key } = await setup.keys.create({
    name: 'k',
    scope: 'read_write',
    plan: 'enterprise',
    perSecond: 1000,
    daily: 1e9,
  });
  const adminToken = setup.adminToken;
  await setup.close();
  return { dataDir, book, connection, key, adminToken };
}
