import type { SheetPortConfig } from '../config.ts';
import { logStrayErrors, stopOnSignals } from '../index.ts';
import { readProgressLines } from './read-progress-lines.ts';
import { startService } from './start-service.ts';

export interface ServeOptions {
  dataDir: string;
  /** What the environment configures (config.ts). */
  config: SheetPortConfig;
  port: number;
  host: string;
  allowedHosts: string[];
  rateLimits?: boolean;
  allowLanWebhooks?: boolean;
  deliveryLogDays?: number;
  /** Open the public tunnel too (`--tunnel`); its failure is reported and the local server goes on. */
  tunnel?: boolean;
  json: boolean;
}

/** `sheetport serve`: run headless until SIGINT/SIGTERM; print the base URL once listening. */
export async function runServe(options: ServeOptions): Promise<void> {
  const service = await startService({
    ...options,
    ...(options.json ? {} : { onReadProgress: readProgressLines((line) => console.log(line)) }),
  });
  const tunnel = options.tunnel ? service.status().tunnel : null;
  if (options.json) {
    const tunnelJson = tunnel
      ? { tunnel: { state: tunnel.state, url: tunnel.url, error: tunnel.error } }
      : {};
    console.log(JSON.stringify({ url: service.url, port: service.port, ...tunnelJson }));
  } else {
    console.log(`SheetPort listening on ${service.url}`);
    // A tunnel that did not open has already said why on stderr (the server log); the local server goes on.
    if (tunnel?.url) console.log(`Public tunnel (serves /api and /v1 only): ${tunnel.url}`);
  }
  logStrayErrors();
  stopOnSignals(service, () => {
    if (!options.json) console.log('SheetPort stopped.');
    process.exit(0);
  });
}
