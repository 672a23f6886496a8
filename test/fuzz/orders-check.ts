/**
 * The run's checks on the workbook: after every request that writes to `Orders`, acknowledged or refused, the
 * tab as listed must be what the model says (an acknowledged write is there as written, a refused one changed
 * nothing); at the end, the `Archive` tab no request named is byte for byte as it was, and openpyxl, reading the
 * file on its own, sees in `Orders` what the API lists.
 */

import { runPython } from '../helpers/openpyxl.ts';
import type { Answer } from './answer-check.ts';
import type { Cell } from './expected-cells.ts';
import { MustRefuse } from './expected-cells.ts';
import type { OrdersWrite } from './orders-writes.ts';
import type { Credential } from './request-plan.ts';
import { send } from './send.ts';
import { TabModel, Unpredictable } from './tab-model.ts';
import type { Target } from './target.ts';
import { ARCHIVE, ORDER_COLUMNS, ORDERS, sheetPartBytes } from './workbook.ts';

type Listed = Record<string, Cell>[];

async function listOrders(target: Target): Promise<Listed> {
  const rows: Listed = [];
  for (let offset = 0; ; offset += 500) {
    const sent = await send(target.base, {
      method: 'GET',
      path: `/v1/sheets/${encodeURIComponent(target.sheetId)}/rows?limit=500&offset=${offset}`,
      headers: { authorization: `Bearer ${target.keys.read}` },
    });
    if (!('answer' in sent) || sent.answer.status !== 200)
      throw new Error(`listing ${ORDERS} failed: ${JSON.stringify(sent)}`);
    const page = JSON.parse(sent.answer.body.toString('utf8'));
    rows.push(...page.data);
    if (rows.length >= page.meta.total || page.data.length === 0) return rows;
  }
}

const OPENPYXL_ROWS = `
import datetime, json, sys
import openpyxl
ws = openpyxl.load_workbook(sys.argv[1], data_only=True)[sys.argv[2]]
def plain(v):
    if isinstance(v, datetime.datetime):
        return v.date().isoformat() if v.time() == datetime.time(0) else v.isoformat()
    if isinstance(v, (datetime.date, datetime.time)):
        return v.isoformat()
    return v
print(json.dumps([[plain(c) for c in row] for row in ws.iter_rows(min_row=2, values_only=True)]))
`;

export class OrdersCheck {
  readonly #target: Target;
  readonly #model = new TabModel();
  readonly #archive: Buffer;

  private constructor(target: Target, archive: Buffer) {
    this.#target = target;
    this.#archive = archive;
  }

  static async start(target: Target): Promise<OrdersCheck> {
    const check = new OrdersCheck(target, await sheetPartBytes(target.ordersFile, ARCHIVE));
    check.#model.reset(await listOrders(target));
    return check;
  }

  get rowCount(): number {
    return this.#model.rows.length;
  }

  /** Takes the tab as it is listed now (after a request whose outcome is unknown). */
  async resync(): Promise<void> {
    this.#model.reset(await listOrders(this.#target));
  }

  /** Problems with the tab after a request that wrote, or tried to write, to it. */
  async after(write: OrdersWrite, credential: Credential, answer: Answer): Promise<string[]> {
    const problems: string[] = [];
    const acknowledged =
      answer.status >= 200 && answer.status < 300 && answer.headers['idempotent-replayed'] !== 'true';
    let predictable = write !== 'unpredictable';
    if (acknowledged && write !== 'unpredictable') {
      try {
        this.#model.apply(write, credential);
      } catch (err) {
        if (err instanceof MustRefuse)
          problems.push(`acknowledged what the contract refuses: ${err.message}`);
        else if (!(err instanceof Unpredictable)) throw err;
        predictable = false;
      }
    }
    const listed = await listOrders(this.#target);
    if (predictable || !acknowledged) {
      for (const difference of this.#model.differences(listed))
        problems.push(
          acknowledged
            ? `the tab after the write: ${difference}`
            : `a refused write changed the tab: ${difference}`,
        );
    }
    this.#model.reset(listed);
    return problems;
  }

  /** The end of the run: the untouched tab untouched, and another reader agreeing with the API. */
  async finish(): Promise<string[]> {
    const problems: string[] = [];
    const archive = await sheetPartBytes(this.#target.ordersFile, ARCHIVE);
    if (!archive.equals(this.#archive)) problems.push(`the ${ARCHIVE} tab, which no request named, changed`);
    const listed = await listOrders(this.#target);
    const seen: unknown[][] = JSON.parse(await runPython(OPENPYXL_ROWS, [this.#target.ordersFile, ORDERS]));
    while (seen.length > 0 && seen[seen.length - 1]!.every((v) => v === null)) seen.pop();
    if (seen.length !== listed.length)
      problems.push(`openpyxl reads ${seen.length} rows of ${ORDERS}, the API lists ${listed.length}`);
    for (let i = 0; i < Math.min(seen.length, listed.length) && problems.length < 5; i++) {
      ORDER_COLUMNS.forEach((column, c) => {
        const api = listed[i]![column] ?? null;
        const other = seen[i]![c] ?? null;
        if (api !== other && !(typeof api === 'string' && other === api))
          problems.push(
            `row ${i + 1} ${column}: openpyxl reads ${JSON.stringify(other)}, the API ${JSON.stringify(api)}`,
          );
      });
    }
    return problems;
  }
}
