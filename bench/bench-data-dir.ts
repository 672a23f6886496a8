/**
 * A bench's data dir made ready before its service starts: workbooks connected as `sheetport connect` registers
 * them, and a read key on the Enterprise plan with limits far above any load, so a bench measures the service
 * and not the rate limiter's refusals.
 */
import path from 'node:path';
import { createServiceContext } from '../server/context.ts';

/** Connects each file (named by its base name) and makes the key; the connections' userKeys in file order. */
export async function prepareDataDir(
  dataDir: string,
  files: string[],
  keyName: string,
): Promise<{ userKeys: string[]; key: string }> {
  const setup = createServiceContext({ dataDir });
  try {
    const userKeys: string[] = [];
    for (const file of files) {
      const connection = await setup.connections.create({
        name: path.basename(file),
        sourceKind: 'workbook',
        idPrefix: 'wb_',
        location: file,
      });
      userKeys.push(connection.userKey);
    }
    const { key } = await setup.keys.create({
      name: keyName,
      scope: 'read',
      plan: 'enterprise',
      perSecond: 1_000_000,
      daily: 1_000_000_000,
    });
    return { userKeys, key };
  } finally {
    await setup.close();
  }
}
