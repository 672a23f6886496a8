/**
 * json-server 0.17.4 on a copy of the rows' db.json (collection `rows`, ids = Order IDs), as a child process:
 * the local "REST API from a file" SheetPort is compared with. It loads the whole file at start and rewrites it
 * whole on every write; it does not watch the file, so it has no outside-edit time.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { stopChild, track } from './children.ts';
import { appendedRow, pageOffset, type ServerUnderTest, searchTerm, writePlace } from './server.ts';
import { send, sleep } from './timing.ts';

const JSON_SERVER = fileURLToPath(new URL('../../node_modules/json-server/lib/cli/bin.js', import.meta.url));
const FIRST_ID = 100_001;

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  return port;
}

export async function startJsonServer(db: string, rows: number): Promise<ServerUnderTest> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/rows`;
  const started = performance.now();
  const child = track(
    spawn(process.execPath, [JSON_SERVER, '--port', String(port), '--quiet', db], {
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  for (;;) {
    try {
      await send({ method: 'GET', url: `${url}?_page=1&_limit=100` });
      break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`json-server exited ${child.exitCode}`);
    if (performance.now() - started > 1_800_000) throw new Error('json-server did not answer in 30 minutes');
    await sleep(20);
  }
  const coldStartMs = performance.now() - started;
  const { deleteAt, updateFrom } = writePlace(rows);
  return {
    name: 'json-server',
    pid: child.pid!,
    coldStartMs,
    listPage: (i) => ({ method: 'GET', url: `${url}?_page=${1 + pageOffset(i + 1, rows) / 100}&_limit=100` }),
    search: (i) => ({
      method: 'GET',
      url: `${url}?${encodeURIComponent('Order ID_like')}=${searchTerm(i, rows)}&_limit=100`,
    }),
    smallRead: () => ({ method: 'GET', url: `${url}/${FIRST_ID}` }),
    deleteRow: (i) => ({ method: 'DELETE', url: `${url}/${FIRST_ID - 1 + deleteAt + i}` }),
    appendRow: (i) => ({ method: 'POST', url, body: appendedRow(i) }),
    updateRow: (i) => ({
      method: 'PATCH',
      url: `${url}/${FIRST_ID - 1 + updateFrom + i}`,
      body: { Quantity: 1000 + i },
    }),
    file: null,
    editedCell: async () => null,
    stop: () => stopChild(child),
  };
}
