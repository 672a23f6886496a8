/**
 * What the webhook and delivery commands need from cli.ts: its global options, its store opener and its output
 * helpers. Passed in (not imported) so these files never import cli.ts back.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { ConnectionStore } from '../store/connections.ts';
import type { DeliveryStore } from '../store/deliveries.ts';
import type { WebhookStore } from '../store/webhooks.ts';

export interface CliGlobals {
  dataDir?: string;
  json?: boolean;
}

export interface WebhookCliStores {
  connections: ConnectionStore;
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
}

export interface CliKit {
  globals(cmd: Command): CliGlobals;
  /** Opens the data dir's database for one synchronous block and closes it after. */
  withStores<T>(g: CliGlobals, fn: (stores: WebhookCliStores) => T): T;
  print(text: string): void;
  printJson(value: unknown): void;
  printTable(header: string[], rows: string[][]): void;
}

/** Epoch milliseconds -> ISO string; null stays null. */
export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A repeatable option's accumulator. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** A whole number from `min` to `max`, for commander option parsing. */
export function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}.`);
    }
    return n;
  };
}
