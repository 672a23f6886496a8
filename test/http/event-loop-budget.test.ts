/**
 * The event-loop budget of one request: with the longest inputs the API accepts (a 5 MB body, a 16 KB URL, 4 KB
 * headers), each request the server refuses or reads costs it under 50 ms of event-loop (active) time, so no
 * client can hold it. The server runs in a worker thread (test/helpers/budget-server.ts) and its loop is read from
 * here through `worker.performance.eventLoopUtilization()`, and its CPU time: the client's own work (building and
 * sending 5 MB) is not counted, nor the time a busy machine (the other test files running beside this one) kept
 * the thread off its core. Each request is sent RUNS times and the cheapest is held to the budget: the first pays
 * for compiling the code it runs, and a loaded machine can only add to a measure, never take from it. The
 * measures are printed.
 *
 * A 5 MB write that succeeds is held to a budget of its own, WRITE_BUDGET_MS: its data is stored three times on
 * the service's thread (the file, the change log and the tab's baseline in SQLite, with a checkpoint of the whole
 * tab every 1,000 rows written), which costs 140-450 ms on a loaded 2-core machine (docs/performance.md).
 *
 * The process runs with glibc's allocator settings of the `sheetport` command (vitest.config.ts starts the test
 * processes with them), under which a fresh large buffer is a fresh mapping: the cost the command's users meet.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mallocTunablesFor } from '../../bin/malloc-tunables.js';
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../server/http/json-bounds.ts';
import type { BudgetServerReady } from '../helpers/budget-server.ts';
import { testConfig } from '../helpers/config.ts';
import { writeCsv, writePeopleWorkbook } from '../helpers/fixtures.ts';

const BUDGET_MS = 50;
const WRITE_BUDGET_MS = 1_000;
/**
 * Runs of each request; the cheapest is held to the budget. Many, because a 5 MB body's cost is mostly fresh
 * memory (its 5 MB string alone: 19 ms of page faults on a 2-core VM, 0.4 ms where the pages are warm), and
 * faults slow down most when the test files beside this one fault too (cheapest of 12: 37-39 ms alone, 39-56
 * ms in a full run on the same VM).
 */
const RUNS = 24;
const MAX_BODY = 5 * 1024 * 1024;
const KEY_SHAPE = `sp_${'A1b2-C3d4_'.repeat(4)}xyz`;

let dir: string;
let worker: Worker;
let server: BudgetServerReady;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-budget-'));
  const files = {
    people: await writePeopleWorkbook(dir),
    notes: await writeCsv(dir, 'notes.csv', 'Name,Note\nAnn,x\n'),
  };
  worker = new Worker(new URL('../helpers/budget-server.ts', import.meta.url), {
    workerData: { dataDir: path.join(dir, 'data'), config: testConfig(), files },
  });
  server = await new Promise<BudgetServerReady>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}, 60_000);

afterAll(async () => {
  if (worker) {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage('stop');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

/** The server thread's CPU time so far, in ms. */
function serverCpuMs(): Promise<number> {
  return new Promise((resolve) => {
    const answer = (message: { cpu?: { user: number; system: number } }) => {
      if (!message.cpu) return;
      worker.off('message', answer);
      resolve((message.cpu.user + message.cpu.system) / 1000);
    };
    worker.on('message', answer);
    worker.postMessage('cpu');
  });
}

/**
 * What one request costs the server's thread (ms), what it does after answering included: its event loop's active
 * time, or its CPU time when that is less (a busy machine took the thread off its core meanwhile, which only
 * lengthens the active time).
 */
async function activeMs(
  send: () => Promise<Response>,
): Promise<{ ms: number; status: number; body: string }> {
  await settle();
  const cpuBefore = await serverCpuMs();
  const before = worker.performance.eventLoopUtilization();
  const res = await send();
  const body = await res.text();
  await settle();
  const active = worker.performance.eventLoopUtilization(before).active;
  const cpu = (await serverCpuMs()) - cpuBefore;
  return { ms: Math.min(active, cpu), status: res.status, body };
}

interface Case {
  name: string;
  status: number;
  send: () => Promise<Response>;
  /** A write that succeeds, held to WRITE_BUDGET_MS. */
  write?: true;
}

function request(pathAndQuery: string, init: RequestInit & { auth?: string | null } = {}): Promise<Response> {
  const { auth, ...rest } = init;
  const headers = new Headers(rest.headers);
  const bearer = auth === undefined ? server.key : auth;
  if (bearer !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${bearer}`);
  return fetch(`${server.url}${pathAndQuery}`, { ...rest, headers });
}

const post = (pathAndQuery: string, body: string, headers: Record<string, string> = {}) =>
  request(pathAndQuery, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

/** `n` rows of one long text each, as a body just under the 5 MB limit. */
function rowsBody(field: string, extra: Record<string, unknown> = {}): string {
  const rows = 500;
  const overhead = JSON.stringify([{ [field]: '', ...extra }]).length * rows;
  const text = 'x'.repeat(Math.floor((MAX_BODY - overhead) / rows) - 8);
  return JSON.stringify(Array.from({ length: rows }, () => ({ [field]: text, ...extra })));
}

/** `{"a":{"a": ... }}` nesting `depth` objects around `inner`. */
const nest = (depth: number, inner: string) => `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;

/** One row whose value nests to the depth bound around a text that makes the body 5 MB. */
function deepBody(): string {
  return `[{"Name":${nest(MAX_JSON_DEPTH - 2, `"${'x'.repeat(MAX_BODY - 1_000)}"`)}}]`;
}

/** As many rows nesting to the depth bound as the value bound allows. */
function manyDeepRows(): string {
  const row = `{"Name":${nest(MAX_JSON_DEPTH - 2, '1')}}`;
  const count = Math.floor(MAX_JSON_VALUES / (MAX_JSON_DEPTH - 1));
  return `[${Array.from({ length: count }, () => row).join(',')}]`;
}

/** 5 MB of empty objects: refused by the value bound before it is parsed. */
function objectsBody(): string {
  return `[${'{},'.repeat(Math.floor(MAX_BODY / 3) - 1)}{}]`;
}

/** A URL of about 16 KB (Node's request header limit allows little more) of runs holding percent escapes. */
function longQuery(base: string): string {
  const run = `${'b'.repeat(40)}%41`;
  return `${base}${base.includes('?') ? '&' : '?'}search=Name:${run.repeat(Math.floor((16_000 - base.length) / run.length))}`;
}

function cases(): Case[] {
  const people = server.connections.people!;
  const notes = server.connections.notes!;
  const peopleRows = `/api/spreadsheets/${people.userKey}/People`;
  const notesRows = `/api/spreadsheets/${notes.userKey}/notes`;
  const webhook = (fields: Record<string, string>) =>
    JSON.stringify({
      url: 'https://hooks.example.com/x',
      spreadsheet_id: people.spreadsheetId,
      sheet_name: 'People',
      ...fields,
    });
  const percentRun = (length: number) => `${'A'.repeat(length - 4)}%41%`;
  const headerRun = `${KEY_SHAPE}%41`.repeat(Math.floor(4_096 / (KEY_SHAPE.length + 3)));
  return [
    {
      name: '5 MB append of 500 rows, refused (an unknown field)',
      status: 400,
      send: () => post(peopleRows, rowsBody('Nmae')),
    },
    {
      name: '5 MB append, refused, with an Idempotency-Key',
      status: 400,
      send: () => post(peopleRows, rowsBody('Nmae'), { 'idempotency-key': `budget-${Math.random()}` }),
    },
    {
      name: '5 MB append of 500 rows, .xlsx',
      status: 201,
      write: true,
      send: () => post(peopleRows, rowsBody('Name')),
    },
    {
      name: '5 MB append of 500 rows, .csv',
      status: 201,
      write: true,
      send: () => post(notesRows, rowsBody('Note')),
    },
    {
      name: '5 MB webhook sheet_name with %',
      status: 404,
      send: () => post('/v1/webhooks', webhook({ sheet_name: percentRun(MAX_BODY - 200) })),
    },
    {
      name: '5 MB webhook url with %',
      status: 400,
      send: () =>
        post('/v1/webhooks', webhook({ url: `https://hooks.example.com/${percentRun(MAX_BODY - 250)}` })),
    },
    { name: '5 MB row nested to the depth bound', status: 400, send: () => post(peopleRows, deepBody()) },
    {
      name: 'rows nested to the bound, up to the value bound',
      status: 400,
      send: () => post(peopleRows, manyDeepRows()),
    },
    {
      name: '5 MB of empty objects, over the value bound',
      status: 400,
      send: () => post(peopleRows, objectsBody()),
    },
    { name: '16 KB URL with % runs, with a key', status: 200, send: () => request(longQuery(peopleRows)) },
    {
      name: '16 KB URL with % runs, no key',
      status: 401,
      send: () => request(longQuery(`${peopleRows}?k=${KEY_SHAPE.replace('_', '%5F')}`), { auth: null }),
    },
    {
      name: '4 KB Idempotency-Key',
      status: 400,
      send: () => post(peopleRows, '{"Name":"Bo"}', { 'idempotency-key': headerRun }),
    },
    {
      name: '4 KB X-Request-Id',
      status: 200,
      send: () => request(peopleRows, { headers: { 'x-request-id': headerRun } }),
    },
    {
      name: '4 KB Authorization shaped like a key',
      status: 401,
      send: () => request(peopleRows, { auth: headerRun }),
    },
  ];
}

describe('one request with the longest legal inputs', () => {
  it.runIf(process.platform === 'linux')(
    'is measured under the allocator settings the command runs with',
    () => {
      // The environment this process started with, which is what glibc read (process.env may change later).
      const started = Object.fromEntries(
        readFileSync('/proc/self/environ', 'utf8')
          .split('\0')
          .filter(Boolean)
          .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
      );
      // Nothing more to add: the command's settings, or a malloc setting of the developer's own, are in it.
      expect(mallocTunablesFor(started)).toBeUndefined();
    },
  );

  it(`costs the server under ${BUDGET_MS} ms of event-loop time (${WRITE_BUDGET_MS} ms for a 5 MB write)`, async () => {
    const measured: string[] = [];
    const over: string[] = [];
    for (const c of cases()) {
      const runs: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const { ms, status, body } = await activeMs(c.send);
        expect(status, `${c.name}: ${body.slice(0, 300)}`).toBe(c.status);
        runs.push(ms);
      }
      const cheapest = Math.min(...runs);
      const budget = c.write ? WRITE_BUDGET_MS : BUDGET_MS;
      measured.push(`${c.name}: ${runs.map((ms) => ms.toFixed(1)).join(' / ')} ms (budget ${budget})`);
      if (cheapest >= budget) over.push(`${c.name}: ${cheapest.toFixed(1)} ms`);
    }
    console.log(`Event-loop active time per request (${RUNS} runs):\n  ${measured.join('\n  ')}`);
    expect(over).toEqual([]);
  }, 120_000);
});
