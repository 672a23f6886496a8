/**
 * A fuzzing run: seeded request plans for every documented operation, sent one at a time to the target, each
 * answer held to the document, every write to `Orders` held to the model of what the tab must hold, until a
 * number of requests or seconds is spent. Findings are grouped by operation and problem, each with a first
 * example. Plain Node: the suite (fuzz.test.ts) and the release run (`npm run fuzz`) both call `fuzz`.
 */
import fc from 'fast-check';
import { answerProblems } from './answer-check.ts';
import { type Built, buildRequest } from './build-request.ts';
import { cpuMs } from './cpu-time.ts';
import type { Scale } from './hostile-values.ts';
import { learn } from './learn.ts';
import { reached } from './operations.ts';
import { OrdersCheck } from './orders-check.ts';
import { ordersWrite } from './orders-writes.ts';
import { Pools } from './pools.ts';
import { anyPlan, type Plan } from './request-plan.ts';
import { send } from './send.ts';
import type { Target } from './target.ts';

export interface RunOptions {
  seed: number;
  /** Stop after this many requests, or after `seconds`, whichever comes first. */
  requests: number;
  seconds: number;
  scale: Scale;
  /** The slowest answer allowed, in ms: a finding when the service also spent half of it on the CPU (a request
   * that only waited for a loaded machine's cores is not the service's doing). */
  slowMs: number;
  progress?: (line: string) => void;
  /** Told of every request sent and its status (`npm run fuzz -- --trace FILE`). */
  trace?: (line: string) => void;
}

export interface Finding {
  where: string;
  problem: string;
  count: number;
  example: string;
}

export interface RunReport {
  requests: number;
  statuses: Record<string, number>;
  findings: Finding[];
}

class Findings {
  readonly #byKey = new Map<string, Finding>();

  add(where: string, problem: string, example: string): void {
    const key = `${where}\n${problem}`;
    const known = this.#byKey.get(key);
    if (known) known.count++;
    else this.#byKey.set(key, { where, problem, count: 1, example });
  }

  get list(): Finding[] {
    return [...this.#byKey.values()];
  }
}

const BATCH = 100;
/**
 * A request whose connection may be closed under the client, so that it reads no answer: a body Node's client
 * sends without a length (on a GET or a DELETE: the service reads it as bytes after the request, which are not
 * HTTP, and closes the connection after its answer, maybe before the client has read it), or a body of a megabyte
 * or more (a refusal answered before the body is read closes the connection while the client is still sending).
 */
const closedUnderClient = (built: Built) => {
  const bytes = Math.max(
    built.request.body?.length ?? 0,
    Number(built.request.headers['content-length'] ?? 0),
  );
  const unframed = (built.request.method === 'GET' || built.request.method === 'DELETE') && bytes > 0;
  return unframed || bytes >= 1024 * 1024;
};

async function one(
  plan: Plan,
  target: Target,
  pools: Pools,
  orders: OrdersCheck,
  findings: Findings,
  options: RunOptions,
) {
  const built = buildRequest(plan, pools, target);
  const reach = reached(plan.op.method, built.request.path);
  const where =
    'op' in reach ? `${plan.op.method} ${reach.op.template}` : `${plan.op.method} (no such route)`;
  const cpuBefore = cpuMs(target.pid);
  const sent = await send(target.base, built.request);
  const cpuAfter = cpuMs(target.pid);
  const busyMs = cpuBefore === null || cpuAfter === null ? Number.POSITIVE_INFINITY : cpuAfter - cpuBefore;
  if ('failure' in sent) {
    options.trace?.(`failed ${sent.failure} ${built.describe}`);
    // Without an answer, whether a write was made is unknown: the model takes the tab as it now is.
    if (ordersWrite(plan, built, target)) await orders.resync();
    if (closedUnderClient(built)) return 'closed while sending';
    findings.add(where, `no answer: ${sent.failure}`, built.describe);
    return 'failed';
  }
  const { answer } = sent;
  options.trace?.(`${answer.status} ${answer.ms}ms ${built.describe}`);
  for (const problem of answerProblems(reach, answer, [target.dataDir]))
    findings.add(
      where,
      problem,
      `${built.describe} -> ${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`,
    );
  if (answer.ms > options.slowMs && busyMs > options.slowMs / 2)
    findings.add(
      where,
      `slower than ${options.slowMs} ms`,
      `${built.describe}: ${answer.ms} ms, ${busyMs} ms of CPU`,
    );
  await learn(plan, built, answer, pools, target);
  const write = ordersWrite(plan, built, target);
  if (write)
    for (const problem of await orders.after(write, plan.credential, answer))
      findings.add(
        where,
        problem,
        `${built.describe} body ${JSON.stringify(built.json)?.slice(0, 300)} -> ${answer.status}`,
      );
  pools.rowCount = orders.rowCount;
  return String(answer.status);
}

export async function fuzz(target: Target, options: RunOptions): Promise<RunReport> {
  const pools = new Pools(target);
  const orders = await OrdersCheck.start(target);
  pools.rowCount = orders.rowCount;
  const findings = new Findings();
  const statuses: Record<string, number> = {};
  const deadline = performance.now() + options.seconds * 1000;
  let sent = 0;
  for (let batch = 0; sent < options.requests && performance.now() < deadline; batch++) {
    const plans = fc.sample(anyPlan(options.scale), { seed: options.seed + batch, numRuns: BATCH });
    for (const plan of plans) {
      if (sent >= options.requests || performance.now() >= deadline) break;
      const status = await one(plan, target, pools, orders, findings, options);
      statuses[status] = (statuses[status] ?? 0) + 1;
      sent++;
      if (!target.alive()) {
        findings.add('the service', 'exited', target.serverLog().slice(-2000));
        return { requests: sent, statuses, findings: findings.list };
      }
    }
    options.progress?.(`${sent} requests, ${findings.list.length} findings`);
  }
  for (const problem of await orders.finish()) findings.add('the workbook', problem, target.ordersFile);
  return { requests: sent, statuses, findings: findings.list };
}
