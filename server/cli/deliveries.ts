/**
 * `sheetport deliveries ...`: the webhook delivery log (list, inspect) and manual replay, in the shapes and with
 * the use case the API has (webhooks/delivery-json.ts, webhooks/replay.ts). A replay only marks the delivery due
 * now in SQLite; the running service's delivery worker notices the commit (it polls SQLite's data_version every
 * 250 ms) and sends it, so this command works without talking to the server.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { AppError } from '../errors.ts';
import type { DeliveryState } from '../repositories/deliveries.ts';
import { deliveryDetailJson, deliveryLogEntryJson, fullAttemptJson } from '../webhooks/delivery-json.ts';
import { replayDelivery } from '../webhooks/replay.ts';
import { globals, iso, print, printJson, printTable, wholeNumber, withStores } from './kit.ts';

const DELIVERY_STATES: readonly DeliveryState[] = ['pending', 'in_flight', 'succeeded', 'failed'];
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

export function registerDeliveryCommands(program: Command): void {
  const deliveries = program
    .command('deliveries')
    .description('the webhook delivery log: list, inspect and replay deliveries');
  registerList(deliveries);
  registerShow(deliveries);
  registerReplay(deliveries);
}

/** `sheetport deliveries list`. */
function registerList(deliveries: Command): void {
  deliveries
    .command('list')
    .description("a webhook's deliveries, newest first")
    .argument('<webhook_id>', 'webhook id (wh_...)')
    .addOption(new Option('--state <state>', 'only deliveries in this state').choices(DELIVERY_STATES))
    .option('--limit <n>', `how many (1-${MAX_LIMIT})`, wholeNumber(1, MAX_LIMIT), DEFAULT_LIMIT)
    .action(async (webhookId: string, opts: { state?: DeliveryState; limit: number }, cmd: Command) => {
      const g = globals(cmd);
      await withStores(g, async ({ webhooks, deliveries }) => {
        if (!(await webhooks.get(webhookId)))
          throw new AppError('not_found', `No webhook with id '${webhookId}'.`);
        const { total, data } = await deliveries.page(webhookId, {
          limit: opts.limit,
          offset: 0,
          ...(opts.state ? { state: opts.state } : {}),
        });
        if (g.json) return printJson(data.map(deliveryLogEntryJson));
        const what = opts.state ? `${opts.state} deliveries` : 'deliveries';
        if (data.length === 0) return print(`No ${what} for ${webhookId}.`);
        printTable(
          ['DELIVERY_ID', 'EVENT', 'STATE', 'ATTEMPTS', 'CREATED', 'NEXT ATTEMPT', 'COMPLETED'],
          data.map((d) => [
            d.id,
            d.event,
            d.state,
            String(d.attempts),
            iso(d.createdAt),
            d.state === 'pending' ? (iso(d.nextAttemptAt) ?? '-') : '-',
            iso(d.completedAt) ?? '-',
          ]),
        );
        if (total > data.length) {
          print(`(newest ${data.length} of ${total} ${what}; see more with --limit)`);
        }
      });
    });
}

/** `sheetport deliveries show`. */
function registerShow(deliveries: Command): void {
  deliveries
    .command('show')
    .description('one delivery: its payload and every attempt')
    .argument('<delivery_id>', 'delivery id (dlv_...)')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      await withStores(g, async ({ deliveries }) => {
        const d = await deliveries.get(id);
        if (!d) throw notFound(id);
        const attempts = await deliveries.attemptsOf(id);
        if (g.json) return printJson(deliveryDetailJson(d, attempts, fullAttemptJson));
        const payload = parsePayload(d.payload);
        const lines = [
          `Delivery ${d.id} (${d.event}) of webhook ${d.webhookId}`,
          `  state:         ${d.state}${d.replay && d.state !== 'succeeded' && d.state !== 'failed' ? ' (replay requested)' : ''}`,
          `  attempts:      ${d.attempts}`,
          `  created:       ${iso(d.createdAt)}`,
          `  next attempt:  ${d.state === 'pending' ? (iso(d.nextAttemptAt) ?? '-') : '-'}`,
          `  completed:     ${iso(d.completedAt) ?? '-'}`,
          '',
          'Payload:',
          typeof payload === 'string' ? payload : JSON.stringify(payload, null, 2),
          '',
          attempts.length ? 'Attempts:' : 'Attempts: none yet',
        ];
        for (const a of attempts) {
          lines.push(
            `  #${a.attempt}  ${iso(a.startedAt)}  ${a.trigger}  ${a.status === null ? 'no response' : `HTTP ${a.status}`}  ${a.durationMs} ms`,
          );
          if (a.targetAddress)
            lines.push(`      to:        ${a.targetAddress} (${a.targetKind ?? 'unknown'})`);
          if (a.error) lines.push(`      error:     ${oneLine(a.error)}`);
          if (a.responseExcerpt) lines.push(`      response:  ${oneLine(a.responseExcerpt)}`);
        }
        print(lines.join('\n'));
      });
    });
}

/** `sheetport deliveries replay`. */
function registerReplay(deliveries: Command): void {
  deliveries
    .command('replay')
    .description('send a delivery again now (the running service sends it within about a second)')
    .argument('<delivery_id>', 'delivery id (dlv_...)')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      await withStores(g, async ({ webhooks, deliveries }) => {
        const before = await deliveries.get(id);
        if (!before) throw notFound(id);
        const after = await replayDelivery(deliveries, before, Date.now());
        const paused = (await webhooks.get(after.webhookId))?.status === 'paused';
        const note = paused
          ? `Webhook ${after.webhookId} is paused: it is sent once the webhook is resumed.`
          : 'A running SheetPort service sends it within about a second (its delivery worker polls the queue); if none is running, it goes out when the service starts.';
        if (g.json)
          return printJson({ delivery_id: after.id, state: after.state, webhook_paused: paused, note });
        print(
          [
            `Delivery ${id} (${after.event}, was ${before.state}) is queued for a new attempt now.`,
            note,
            `Check the result with: sheetport deliveries show ${id}`,
          ].join('\n'),
        );
      });
    });
}

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

function notFound(id: string): AppError {
  return new AppError('not_found', `No delivery with id '${id}'.`);
}
