/**
 * `npm run app:smoke` (the app started with `--smoke`): the first start of the real app, checked end to end on a
 * maintainer's machine before a release. The server starts in a throwaway data dir, `/openapi.json` is fetched,
 * the demo workbook is connected and read through the API as a client would (a read that runs the parse worker
 * and SQLite, the parts a packed app most easily gets wrong), the tray must have been created, and one line
 * says how it went. Everything it touches is injected, so the logic is tested without Electron.
 */

export const SMOKE_FLAG = '--smoke';
/** The whole check, Electron's start included, ends within 30 s; the checks get 25 s of it. */
export const SMOKE_EXIT_MS = 30_000;
export const SMOKE_DEADLINE_MS = 25_000;
/** Printed when the app itself never got as far as the checks (Electron not ready, the tray call hanging). */
export const SMOKE_TIMEOUT_LINE = `SMOKE FAIL start: the app did not reach its checks within ${SMOKE_EXIT_MS / 1000} s`;

export interface SmokeServer {
  url: string;
  adminToken: string;
}

export interface SmokeDeps {
  /** The server, started by the app in a throwaway data dir (null when it did not start: `startError` says why). */
  server: SmokeServer | null;
  startError?: string | null;
  /** Writes the demo workbook in the throwaway data dir; its path. */
  createDemo(): Promise<string>;
  /** Whether the tray icon was created (false, or a reason, when it was not). */
  tray: true | string;
  fetch: typeof fetch;
  now(): number;
  /** Resolves after `ms` (the deadline). */
  sleep(ms: number): Promise<void>;
}

export interface SmokeResult {
  ok: boolean;
  /** One line: `SMOKE PASS ...` or `SMOKE FAIL <step>: <reason> ...`. */
  line: string;
}

type Step = 'server' | 'openapi' | 'demo-read' | 'tray';

class StepFailed extends Error {
  readonly step: Step;
  constructor(step: Step, message: string) {
    super(message);
    this.step = step;
  }
}

export async function runSmoke(deps: SmokeDeps, deadlineMs = SMOKE_DEADLINE_MS): Promise<SmokeResult> {
  const started = deps.now();
  const passed: string[] = [];
  const seconds = () => `${((deps.now() - started) / 1000).toFixed(1)} s`;
  const checks = (async () => {
    const server = deps.server;
    if (!server) throw new StepFailed('server', deps.startError ?? 'the server did not start');
    passed.push(`server=${server.url}`);

    const openapi = await deps.fetch(`${server.url}/openapi.json`);
    const doc = openapi.ok ? ((await openapi.json()) as { openapi?: unknown }) : null;
    if (!doc || typeof doc.openapi !== 'string')
      throw new StepFailed('openapi', `GET /openapi.json answered ${openapi.status}`);
    passed.push(`openapi=${doc.openapi}`);

    passed.push(`demo-read=${await readDemo(deps, server)} rows`);

    if (deps.tray !== true) throw new StepFailed('tray', deps.tray);
    passed.push('tray=created');
  })();
  const deadline = deps.sleep(deadlineMs).then(() => {
    throw new StepFailed(nextStep(passed), `no answer within ${deadlineMs / 1000} s`);
  });
  // Once the checks have won the race, the deadline's later rejection is nobody's concern.
  deadline.catch(() => {});
  try {
    await Promise.race([checks, deadline]);
    return { ok: true, line: `SMOKE PASS ${passed.join(' ')} (${seconds()})` };
  } catch (err) {
    const step = err instanceof StepFailed ? err.step : nextStep(passed);
    const reason = oneLine(err instanceof Error ? err.message : String(err));
    const done = passed.length ? ` after ${passed.join(' ')}` : '';
    return { ok: false, line: `SMOKE FAIL ${step}: ${reason}${done} (${seconds()})` };
  }
}

/** The demo workbook connected and its first tab read through `/api` with a read key; the number of rows. */
async function readDemo(deps: SmokeDeps, server: SmokeServer): Promise<number> {
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await deps.fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    if (!res.ok) {
      const error = (json?.error as { message?: string } | undefined)?.message ?? '';
      throw new StepFailed(
        'demo-read',
        `${method} ${path.split('?')[0]} answered ${res.status} ${error}`.trim(),
      );
    }
    return json ?? {};
  };
  const location = await deps.createDemo();
  const connection = await call('POST', '/admin/connections', server.adminToken, { location });
  const userKey = String(connection.user_key);
  const tab = (connection.sheets as { name: string }[] | undefined)?.[0]?.name;
  if (!tab) throw new StepFailed('demo-read', 'the demo workbook has no tab');
  const key = await call('POST', '/admin/keys', server.adminToken, { name: 'smoke', scope: 'read' });
  const page = await call('GET', `/api/spreadsheets/${userKey}/${encodeURIComponent(tab)}`, String(key.key));
  const rows = Array.isArray(page.data) ? page.data.length : Array.isArray(page) ? page.length : 0;
  if (rows === 0) throw new StepFailed('demo-read', `no rows came back from tab ${tab}`);
  return rows;
}

function nextStep(passed: string[]): Step {
  const order: Step[] = ['server', 'openapi', 'demo-read', 'tray'];
  return order[Math.min(passed.length, order.length - 1)] ?? 'tray';
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
