import type { Replica } from '../replica/replica.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import type {
  Mutation,
  SourceFreshness,
  SpreadsheetSnapshot,
  TabSnapshot,
  WriteOptions,
  WriteResult,
} from '../sources/source.ts';
import { resolveTab, type TabRef } from './tab-resolver.ts';

/**
 * One connected spreadsheet: the only way routes, the CLI and webhook registration read it, write it, look at it
 * for outside changes, or find one of its tabs.
 */
export class Spreadsheet {
  readonly connection: ConnectionRecord;
  readonly #replica: Replica;

  constructor(connection: ConnectionRecord, replica: Replica) {
    this.connection = connection;
    this.#replica = replica;
  }

  /** Its tabs as of the source's cheap version. Records nothing (see `observe`). */
  async read(): Promise<SpreadsheetSnapshot> {
    return (await this.#replica.get(this.connection)).snapshot;
  }

  /** One tab, by the one rule of tab-resolver.ts. */
  async tab(ref: TabRef): Promise<TabSnapshot> {
    return resolveTab(await this.read(), ref);
  }

  /** Look now and record what changed outside SheetPort since the last look (its webhooks are queued). */
  async observe(): Promise<SpreadsheetSnapshot> {
    return (await this.#replica.observe(this.connection)).snapshot;
  }

  /** Mutations of one tab, all or none; answered once the change is recorded. */
  write(sourceSheetId: string, mutations: Mutation[], options: WriteOptions): Promise<WriteResult> {
    return this.#replica.write(this.connection, sourceSheetId, mutations, options);
  }

  /** How current the copy is, as its source says. */
  freshness(): SourceFreshness {
    return this.#replica.freshness(this.connection);
  }
}
