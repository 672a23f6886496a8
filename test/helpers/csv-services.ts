/**
 * Real services (startServer, what `sheetport serve` runs) over temp data dirs, each with a two-row `team.csv`
 * connected (tab `team`), for suites that then look at what the service wrote into its data dir. Call
 * `stopAll()` after each test: it stops every service started or tracked and removes the dirs.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type RunningServer, startServer } from '../../server/index.ts';

type ServerOptions = Parameters<typeof startServer>[0];

export function csvServices(prefix: string) {
  const dirs: string[] = [];
  const services: RunningServer[] = [];
  return {
    /** A service on port 0 of loopback, silent unless `options.log` says otherwise. */
    async start(options: Partial<ServerOptions> = {}) {
      const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
      dirs.push(dir);
      const dataDir = path.join(dir, 'data');
      const service = await startServer({ dataDir, port: 0, host: '127.0.0.1', log: () => {}, ...options });
      services.push(service);
      const csv = path.join(dir, 'team.csv');
      await writeFile(csv, 'name,age\nAnn,31\nBob,25\n');
      const connection = await service.context.connections.create({
        name: 'team',
        sourceKind: 'workbook',
        idPrefix: 'wb_',
        location: csv,
      });
      return { dir, dataDir, service, connection };
    },
    /** A service the test started itself, stopped with the others. */
    track(service: RunningServer): void {
      services.push(service);
    },
    async stopAll(): Promise<void> {
      for (const s of services.splice(0)) await s.stop();
      for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
    },
  };
}
