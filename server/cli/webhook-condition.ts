/**
 * A webhook's condition from the command line: `--where` and `--column` on `webhooks create`, and
 * `sheetport webhooks condition <id>` to change or clear it (docs/api.md, "Conditional webhooks").
 */
import type { Command } from 'commander';
import { AppError } from '../errors.ts';
import type { WebhookCondition, WebhookRecord } from '../repositories/webhooks.ts';
import { changedCondition } from '../webhooks/register.ts';
import { webhookJson } from '../webhooks/webhook-json.ts';
import { globals, print, printJson, repeatableOption, withServiceAsync } from './kit.ts';

interface ConditionFlags {
  where?: string;
  column: string[];
}

/** The condition `create` was given; null when neither flag was. */
export function conditionFromFlags(flags: ConditionFlags): WebhookCondition | null {
  if (flags.where === undefined && flags.column.length === 0) return null;
  return { where: flags.where ?? null, columns: flags.column.length > 0 ? flags.column : null };
}

/** The lines that show a webhook's condition (none without one). */
export function conditionLines(record: WebhookRecord): string[] {
  const lines: string[] = [];
  if (record.condition?.where) lines.push(`  where:        ${record.condition.where}`);
  if (record.condition?.columns) lines.push(`  columns:      ${record.condition.columns.join(', ')}`);
  return lines;
}

/** `sheetport webhooks condition <id>`. */
export function registerCondition(webhooks: Command): void {
  webhooks
    .command('condition')
    .description('change which changes a webhook notifies (its where and columns), or clear them')
    .argument('<id>', 'webhook id (wh_...)')
    .option(
      '--where <expression>',
      'notify a changed row only when it matches, before or after ("" clears it)',
    )
    .addOption(
      repeatableOption('--column <name>', 'notify an update only when this column changed', 'unchanged'),
    )
    .option('--any-column', 'notify an update whatever column changed (clears --column)')
    .option('--clear', 'no condition: notify every changed row')
    .action(
      async (id: string, opts: ConditionFlags & { anyColumn?: boolean; clear?: boolean }, cmd: Command) => {
        const g = globals(cmd);
        const given = givenChange(opts);
        await withServiceAsync(g, async (service) => {
          const webhook = await service.webhooks.get(id);
          if (!webhook) throw new AppError('not_found', `No webhook with id '${id}'.`);
          const connection = await service.connections.getBySpreadsheetId(webhook.spreadsheetId);
          if (!connection)
            throw new AppError('spreadsheet_not_found', `No connection for ${webhook.spreadsheetId}.`);
          const condition = await changedCondition(service.spreadsheets, connection, webhook, given);
          const updated = (await service.webhooks.update(id, { condition }))!;
          if (g.json) return printJson(webhookJson(updated));
          const lines = conditionLines(updated);
          print(
            [`Webhook ${id} now notifies:`, ...(lines.length > 0 ? lines : ['  every changed row'])].join(
              '\n',
            ),
          );
        });
      },
    );
}

function givenChange(
  opts: ConditionFlags & { anyColumn?: boolean; clear?: boolean },
): Partial<WebhookCondition> {
  if (opts.clear) return { where: null, columns: null };
  const given: Partial<WebhookCondition> = {};
  if (opts.where !== undefined) given.where = opts.where.trim() === '' ? null : opts.where;
  if (opts.anyColumn) given.columns = null;
  else if (opts.column.length > 0) given.columns = opts.column;
  if (Object.keys(given).length === 0) {
    throw new AppError(
      'invalid_parameter',
      'Nothing to change: give --where, --column, --any-column or --clear.',
    );
  }
  return given;
}
