/** `sheetport keys create|list|revoke|set-plan|usage`: API keys, their rate-limit plans and their usage. */
import type { Command } from 'commander';
import { Option } from 'commander';
import { quantity } from '../lib/quantity.ts';
import { limitsOf } from '../limits/plans.ts';
import { usageReport } from '../limits/usage-report.ts';
import { KEY_PLANS, KEY_SCOPES, type KeyPlan, type KeyScope } from '../repositories/keys.ts';
import {
  CliError,
  globals,
  keyJson,
  parseCount,
  print,
  printJson,
  printTable,
  repeatableOption,
  withStores,
} from './kit.ts';

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('create, list or revoke API keys');
  registerCreate(keys);
  registerList(keys);
  registerRevoke(keys);
  registerSetPlan(keys);
  registerUsage(keys);
}

/** `keys create`: a new key, shown once. */
function registerCreate(keys: Command): void {
  keys
    .command('create')
    .description('create an API key (shown once)')
    .addOption(new Option('--scope <scope>', 'what the key may do').choices(KEY_SCOPES).default('read'))
    .addOption(repeatableOption('--connection <id>', 'limit the key to this spreadsheet', 'all'))
    .option('--name <name>', 'label for the key')
    .option('--allow-formulas', 'let the key write formulas (strings starting with =)')
    .addOption(new Option('--plan <plan>', 'rate-limit plan').choices(KEY_PLANS).default('free'))
    .option('--per-second <n>', 'override the per-second request limit', parseCount)
    .option('--daily <n>', 'override the daily request limit', parseCount)
    .action(
      async (
        opts: {
          scope: KeyScope;
          connection: string[];
          name?: string;
          allowFormulas?: boolean;
          plan: KeyPlan;
          perSecond?: number;
          daily?: number;
        },
        cmd: Command,
      ) => {
        const g = globals(cmd);
        await withStores(g, async ({ connections, keys }) => {
          const ids: string[] = [];
          for (const ref of opts.connection) {
            const c = await connections.resolve(ref);
            if (!c) throw new CliError('spreadsheet_not_found', `Unknown connection '${ref}'.`);
            ids.push(c.spreadsheetId);
          }
          const { record, key } = await keys.create({
            name: opts.name ?? '',
            scope: opts.scope,
            plan: opts.plan,
            connections: ids,
            allowFormulas: opts.allowFormulas === true,
            perSecond: opts.perSecond ?? null,
            daily: opts.daily ?? null,
          });
          if (g.json) {
            const { id, scope, ...rest } = keyJson(record);
            return printJson({ id, key, scope, ...rest });
          }
          print(
            [
              `Created API key ${record.id} (${record.scope}${record.connections.length ? `, ${record.connections.join(', ')}` : ', all spreadsheets'}):`,
              '',
              `  ${key}`,
              '',
              'Copy it now: it is stored only as a hash and cannot be shown again.',
            ].join('\n'),
          );
        });
      },
    );
}

/** `keys list`: every key, never the key itself. */
function registerList(keys: Command): void {
  keys
    .command('list')
    .description('list API keys (never the keys themselves)')
    .action(async (_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      await withStores(g, async ({ keys }) => {
        const all = await keys.list();
        if (g.json) return printJson(all.map(keyJson));
        if (all.length === 0) return print('No API keys yet. Create one with: sheetport keys create');
        printTable(
          ['ID', 'NAME', 'PREFIX', 'SCOPE', 'PLAN', 'CONNECTIONS', 'CREATED', 'LAST USED', 'REVOKED'],
          all.map((k) => [
            k.id,
            k.name || '-',
            `${k.prefix}…`,
            k.scope,
            k.plan,
            k.connections.length ? k.connections.join(',') : 'all',
            k.createdAt,
            k.lastUsedAt ?? '-',
            k.revokedAt ?? '-',
          ]),
        );
      });
    });
}

/** `keys revoke`: a key refused from now on. */
function registerRevoke(keys: Command): void {
  keys
    .command('revoke')
    .description('revoke an API key; requests using it fail from now on')
    .argument('<id>', 'key id (key_...)')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      await withStores(g, async ({ keys }) => {
        const before = await keys.get(id);
        if (!before) throw new CliError('not_found', `No API key with id '${id}'.`);
        const revokedNow = await keys.revoke(id);
        const after = await keys.get(id);
        if (g.json) return printJson({ id, revoked: true, revoked_at: after?.revokedAt ?? null });
        print(revokedNow ? `Revoked ${id}.` : `${id} was already revoked (${before.revokedAt}).`);
      });
    });
}

/** `keys set-plan`: a key's rate-limit plan. */
function registerSetPlan(keys: Command): void {
  keys
    .command('set-plan')
    .description("change a key's rate-limit plan")
    .argument('<id>', 'key id (key_...)')
    .addOption(new Option('--plan <plan>', 'rate-limit plan').choices(KEY_PLANS).makeOptionMandatory())
    .option('--per-second <n>', 'enterprise: requests per rolling second', parseCount)
    .option('--daily <n>', 'enterprise: requests per UTC day', parseCount)
    .action(async (id: string, opts: { plan: KeyPlan; perSecond?: number; daily?: number }, cmd: Command) => {
      const g = globals(cmd);
      await withStores(g, async ({ keys }) => {
        const record = await keys.setPlan(id, {
          plan: opts.plan,
          perSecond: opts.perSecond ?? null,
          daily: opts.daily ?? null,
        });
        if (!record) throw new CliError('not_found', `No API key with id '${id}'.`);
        if (g.json) return printJson(keyJson(record));
        const limits = limitsOf(record);
        print(
          `${record.id} is now on the ${record.plan} plan: ${quantity(limits.perSecond, 'request')}/s, ${limits.daily} per day.`,
        );
      });
    });
}

/** `keys usage`: requests per day and refusals by limit. */
function registerUsage(keys: Command): void {
  keys
    .command('usage')
    .description('requests per day (last 30 days) and refused requests by limit')
    .argument('<id>', 'key id (key_...)')
    .option('--days <n>', 'how many days back', parseCount, 30)
    .action(async (id: string, opts: { days: number }, cmd: Command) => {
      const g = globals(cmd);
      await withStores(g, async ({ keys, usage }) => {
        const record = await keys.get(id);
        if (!record) throw new CliError('not_found', `No API key with id '${id}'.`);
        const report = await usageReport(record, usage, Date.now(), Math.max(1, opts.days));
        if (g.json) return printJson(report);
        print(
          `${record.id} (${record.plan}: ${report.limits.per_second}/s, ${report.limits.daily}/day). ` +
            `Today: ${quantity(report.today.requests, 'request')}, ${report.today.refused_per_second + report.today.refused_daily} refused.`,
        );
        if (report.days.length === 0) return print('No requests in this period.');
        printTable(
          ['DAY (UTC)', 'REQUESTS', 'REFUSED PER-SECOND', 'REFUSED DAILY'],
          report.days.map((d) => [
            d.day,
            String(d.requests),
            String(d.refused_per_second),
            String(d.refused_daily),
          ]),
        );
      });
    });
}
