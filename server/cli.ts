/**
 * The `sheetport` command line. Every command takes `--data-dir <dir>` and `--json`. Errors are one line on
 * stderr (`{"error":{code,message}}` with --json) and exit code 1; stack traces only with SHEETPORT_DEBUG=1.
 * The commands themselves live in cli/, one file per group; their shared helpers in cli/kit.ts.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { registerAccountCommands } from './cli/accounts.ts';
import { registerAdminCommands } from './cli/admin.ts';
import { registerBackupCommands } from './cli/backups.ts';
import { registerConnectionCommands } from './cli/connections.ts';
import { registerDashboardCommand } from './cli/dashboard.ts';
import { registerDeliveryCommands } from './cli/deliveries.ts';
import { registerKeyCommands } from './cli/keys.ts';
import { CliError, printError } from './cli/kit.ts';
import { registerLoginCommand } from './cli/login.ts';
import { registerMcpCommands } from './cli/mcp.ts';
import { registerRecordCommands } from './cli/records.ts';
import { registerServeCommands } from './cli/serve.ts';
import { registerTunnelCommands } from './cli/tunnel.ts';
import { registerWebhookCommands } from './cli/webhooks.ts';
import { DATA_DIR_ENV } from './config.ts';
import { packageVersion } from './lib/package-file.ts';
import { kindNames, sourceKind } from './sources/index.ts';

/** Run the CLI with user arguments (no `node` / script path). Resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  // Known before parsing, so even commander's own parse errors come out as JSON when asked.
  const json = argv.includes('--json');
  const program = buildProgram(json);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; parse errors were already printed by outputError below.
      return err.exitCode;
    }
    printError(err, json);
    return err instanceof CliError ? err.exitCode : 1;
  }
}

export function buildProgram(json: boolean): Command {
  const program = new Command('sheetport')
    .description(
      `Use a spreadsheet as a database: the rows of a tab of ${kindLabels()} as records over HTTP.`,
    )
    .option('--data-dir <dir>', `data directory (default: $${DATA_DIR_ENV}, else the OS app-data folder)`)
    .option('--json', 'machine-readable output')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      outputError: (message, write) => {
        const text = message.trim().replace(/^error:\s*/i, '');
        if (json) write(`${JSON.stringify({ error: { code: 'invalid_parameter', message: text } })}\n`);
        else write(`error: ${text}\n`);
      },
    });

  // Registration order is the order `--help` lists the commands in.
  registerServeCommands(program); // serve, demo
  registerConnectionCommands(program); // connect, connections
  registerLoginCommand(program);
  registerAccountCommands(program);
  registerKeyCommands(program);
  registerWebhookCommands(program);
  registerDeliveryCommands(program);
  registerBackupCommands(program);
  registerAdminCommands(program);
  registerRecordCommands(program); // export, import
  registerTunnelCommands(program);
  registerDashboardCommand(program);
  registerMcpCommands(program); // mcp, mcp config

  return program;
}

/** Every kind of spreadsheet the service reads, for the program's description: "a Google Sheets spreadsheet or ...". */
function kindLabels(): string {
  return kindNames()
    .map((name) => sourceKind(name).label)
    .join(' or ');
}

// Run when executed directly (`node server/cli.ts ...`); bin/sheetport.js imports main() itself.
const entry = process.argv[1];
if (entry && import.meta.url === pathToFileURL(path.resolve(entry)).href) {
  process.exitCode = await main(process.argv.slice(2));
}
