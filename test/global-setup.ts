/**
 * Once per test run: a temporary PostgreSQL cluster (test/helpers/postgres-cluster.ts). Its admin URL reaches
 * the suites through SHEETPORT_TEST_PG_ADMIN_URL (worker processes inherit it); test/helpers/postgres.ts turns
 * it into a fresh database per suite.
 */
import { startCluster } from './helpers/postgres-cluster.ts';

export default async function setup(): Promise<() => void> {
  const cluster = await startCluster();
  process.env.SHEETPORT_TEST_PG_ADMIN_URL = cluster.adminUrl;
  return () => cluster.stop();
}
