/**
 * `sheetport webhooks ...`: register, list, pause, resume, delete webhooks and rotate their secrets. The secret is
 * printed once, by `create` and `rotate-secret`, and never by anything else.
 */
import { type Command, Option } from 'commander';
import { AppError, isAppError } from '../errors.ts';
import { quantity } from '../lib/quantity.ts';
import type { WebhookStatus } from '../repositories/webhooks.ts';
import { isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from '../repositories/webhooks.ts';
import { registerWebhookOnTab, rotateWebhookSecret } from '../webhooks/register.ts';
import { ALLOW_LAN_FLAG, validateWebhookUrl } from '../webhooks/target-safety.ts';
import { createdWebhookJson, webhookJson } from '../webhooks/webhook-json.ts';
import {
  type GlobalOptions,
  globals,
  print,
  printJson,
  printTable,
  repeatableOption,
  withServiceAsync,
  withStores,
} from './kit.ts';
import { conditionFromFlags, conditionLines, registerCondition } from './webhook-condition.ts';

export function registerWebhookCommands(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('register, list, pause, resume or delete webhooks (signed POSTs on row changes)');
  registerList(webhooks);
  registerCreate(webhooks);
  registerDelete(webhooks);
  registerRotateSecret(webhooks);
  registerCondition(webhooks);
}

/** `sheetport webhooks list`. */
function registerList(webhooks: Command): void {
  webhooks
    .command('list')
    .description('list webhooks (never their secrets)')
    .option('--spreadsheet <id>', 'only the webhooks of this spreadsheet (spreadsheet id or userKey)')
    .action(async (opts: { spreadsheet?: string }, cmd: Command) => {
      const g = globals(cmd);
      await withStores(g, async ({ connections, webhooks }) => {
        let all = await webhooks.list();
        if (opts.spreadsheet !== undefined) {
          // A removed connection's webhooks can still be listed by the raw spreadsheet id.
          const id = (await connections.resolve(opts.spreadsheet))?.spreadsheetId ?? opts.spreadsheet;
          all = all.filter((w) => w.spreadsheetId === id);
        }
        if (g.json) return printJson(all.map((w) => webhookJson(w)));
        if (all.length === 0) {
          return print(
            'No webhooks yet. Add one with: sheetport webhooks create --url URL --spreadsheet ID --sheet NAME',
          );
        }
        printTable(
          ['WEBHOOK_ID', 'SPREADSHEET_ID', 'SHEET', 'EVENTS', 'STATUS', 'CREATED', 'URL'],
          all.map((w) => [
            w.id,
            w.spreadsheetId,
            w.sheetName,
            w.events.join(','),
            w.status,
            w.createdAt,
            w.url,
          ]),
        );
      });
    });
}

/** `sheetport webhooks create`. */
function registerCreate(webhooks: Command): void {
  webhooks
    .command('create')
    .description('register a webhook on one sheet (the signing secret is shown once)')
    .requiredOption('--url <url>', 'where to POST: https, or http to localhost')
    .requiredOption('--spreadsheet <id>', 'spreadsheet id or userKey')
    .requiredOption('--sheet <name>', 'the sheet (tab) name')
    .addOption(
      repeatableOption(
        '--event <type>',
        'event to send (commas allowed)',
        `all: ${WEBHOOK_EVENTS.join(', ')}`,
      ),
    )
    .option(
      '--where <expression>',
      "notify a changed row only when it matches, before or after (as GET rows' where)",
    )
    .addOption(
      repeatableOption('--column <name>', 'notify an update only when this column changed', 'any column'),
    )
    .option(ALLOW_LAN_FLAG, 'accept a private (LAN) address for this registration')
    // The old name of the same switch, kept working but no longer shown.
    .addOption(new Option('--allow-lan').hideHelp())
    .action(
      async (
        opts: {
          url: string;
          spreadsheet: string;
          sheet: string;
          event: string[];
          where?: string;
          column: string[];
          allowLanWebhooks?: boolean;
          allowLan?: boolean;
        },
        cmd: Command,
      ) => {
        await createWebhook(
          { ...opts, allowLan: opts.allowLanWebhooks === true || opts.allowLan === true },
          globals(cmd),
        );
      },
    );

  for (const [name, status, description] of [
    ['pause', 'paused', 'stop sending; notifications keep queuing until resumed'],
    ['resume', 'active', 'send again, queued notifications first'],
  ] as const) {
    webhooks
      .command(name)
      .description(description)
      .argument('<id>', 'webhook id (wh_...)')
      .action((id: string, _opts: unknown, cmd: Command) => setStatus(id, status, globals(cmd)));
  }
}

/** `sheetport webhooks delete`. */
function registerDelete(webhooks: Command): void {
  webhooks
    .command('delete')
    .description('delete a webhook and its delivery log')
    .argument('<id>', 'webhook id (wh_...)')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      await withStores(g, async ({ webhooks }) => {
        const found = await webhooks.get(id);
        if (!found || !(await webhooks.remove(id))) throw notFound(id);
        if (g.json) return printJson({ webhook_id: id, deleted: true });
        print(`Deleted webhook ${id} (${found.url}) and its delivery log.`);
      });
    });
}

/** `sheetport webhooks rotate-secret`. */
function registerRotateSecret(webhooks: Command): void {
  webhooks
    .command('rotate-secret')
    .description('replace the signing secret (the new one is shown once)')
    .argument('<id>', 'webhook id (wh_...)')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      await withStores(g, async ({ webhooks }) => {
        const secret = await rotateWebhookSecret(webhooks, id);
        if (secret === null) throw notFound(id);
        if (g.json) return printJson({ webhook_id: id, secret });
        print(
          [
            `New signing secret for ${id}:`,
            '',
            `  ${secret}`,
            '',
            'Copy it now: it is not shown again. Every delivery from now on (retries of older ones too) is signed with it.',
          ].join('\n'),
        );
      });
    });
}

// ---------------------------------------------------------------------------------------------------------------

interface CreateOptions {
  url: string;
  spreadsheet: string;
  sheet: string;
  event: string[];
  where?: string;
  column: string[];
  allowLan?: boolean;
}

async function createWebhook(opts: CreateOptions, g: GlobalOptions): Promise<void> {
  const { url, needsLan } = checkUrl(opts.url, opts.allowLan === true);
  const events = eventsFromFlags(opts.event);
  await withServiceAsync(g, async (service) => {
    const connection = await service.connections.resolve(opts.spreadsheet);
    if (!connection) {
      throw new AppError(
        'spreadsheet_not_found',
        `No connection with spreadsheet id or userKey '${opts.spreadsheet}'.`,
      );
    }
    const { record, secret } = await registerWebhookOnTab(
      { webhooks: service.webhooks, spreadsheets: service.spreadsheets },
      { connection, sheetName: opts.sheet, url, events, condition: conditionFromFlags(opts), apiKeyId: null },
    );
    if (g.json) return printJson(createdWebhookJson(record, secret));
    const lines = [
      `Created webhook ${record.id}`,
      `  url:          ${record.url}`,
      `  spreadsheet:  ${connection.name} (${record.spreadsheetId})`,
      `  sheet:        ${record.sheetName}`,
      `  events:       ${record.events.join(', ')}`,
      ...conditionLines(record),
      `  status:       ${record.status}`,
      '',
      'Signing secret (X-Service-Signature is HMAC-SHA256 of the body keyed with it; Standard Webhooks compatible):',
      '',
      `  ${secret}`,
      '',
      `Copy it now: it is not shown again (a new one: sheetport webhooks rotate-secret ${record.id}).`,
    ];
    if (needsLan) {
      lines.push(
        '',
        `Note: this URL is on a private (LAN) address; deliveries go out only if the service runs with LAN webhook targets allowed (sheetport serve ${ALLOW_LAN_FLAG}).`,
      );
    }
    print(lines.join('\n'));
  });
}

/** validateWebhookUrl, with CLI wording. `needsLan`: it passed only because of --allow-lan-webhooks. */
function checkUrl(raw: string, allowLan: boolean): { url: string; needsLan: boolean } {
  try {
    const { url } = validateWebhookUrl(raw, { allowLan });
    let needsLan = false;
    if (allowLan) {
      try {
        validateWebhookUrl(raw, { allowLan: false });
      } catch {
        needsLan = true;
      }
    }
    return { url: url.href, needsLan };
  } catch (err) {
    if (!isAppError(err)) throw err;
    const message = err.message.replace(
      /LAN webhook targets are off \(.*\)$/,
      `pass ${ALLOW_LAN_FLAG} to register it`,
    );
    throw new AppError('invalid_parameter', `Invalid --url: ${message}.`);
  }
}

/** --event values (repeatable, commas allowed): known and unique; none given means all four. */
function eventsFromFlags(raw: string[]): WebhookEvent[] {
  const given = raw
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (given.length === 0) return [...WEBHOOK_EVENTS];
  const events: WebhookEvent[] = [];
  for (const value of given) {
    if (!isWebhookEvent(value)) {
      throw new AppError(
        'invalid_parameter',
        `Unknown event '${value}': expected one of ${WEBHOOK_EVENTS.join(', ')}.`,
      );
    }
    if (events.includes(value)) throw new AppError('invalid_parameter', `Event '${value}' is given twice.`);
    events.push(value);
  }
  return events;
}

async function setStatus(id: string, status: WebhookStatus, g: GlobalOptions): Promise<void> {
  await withStores(g, async ({ webhooks, deliveries }) => {
    const before = await webhooks.get(id);
    if (!before) throw notFound(id);
    const after = before.status === status ? before : (await webhooks.update(id, { status }))!;
    if (g.json) return printJson(webhookJson(after));
    if (before.status === status) return print(`${id} is already ${status}.`);
    if (status === 'paused') {
      return print(`Paused ${id}. Its notifications keep queuing and are sent when it is resumed.`);
    }
    const queued = (await deliveries.page(id, { state: 'pending', limit: 1, offset: 0 })).total;
    print(
      `Resumed ${id}.${queued ? ` ${quantity(queued, 'queued notification')} ${queued === 1 ? 'goes' : 'go'} out now if the service is running.` : ''}`,
    );
  });
}

function notFound(id: string): AppError {
  return new AppError('not_found', `No webhook with id '${id}'.`);
}
