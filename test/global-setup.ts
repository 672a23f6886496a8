/**
 * Once per test run: a temporary PostgreSQL cluster (test/helpers/postgres-cluster.ts). Its admin URL reaches
 * the suites through vitest's `provide` / `inject` ('pgAdminUrl'); test/helpers/postgres.ts turns it into a
 * fresh database per suite.
 */
import type { TestProject } from 'vitest/node';
import { startCluster } from './helpers/postgres-cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const cluster = await startCluster();
  project.provide('pgAdminUrl', cluster.adminUrl);
  return () => cluster.stop();
}
