import type { Replica } from '../replica/replica.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import { Spreadsheet } from './spreadsheet.ts';

/** Every connected spreadsheet, one `Spreadsheet` per connection. */
export class Spreadsheets {
  readonly #replica: Replica;
  readonly #open = new Map<string, Spreadsheet>();

  constructor(replica: Replica) {
    this.#replica = replica;
  }

  /** The connection's spreadsheet (the same object for as long as the connection is unchanged). */
  of(connection: ConnectionRecord): Spreadsheet {
    const open = this.#open.get(connection.spreadsheetId);
    if (open && open.connection === connection) return open;
    const spreadsheet = new Spreadsheet(connection, this.#replica);
    this.#open.set(connection.spreadsheetId, spreadsheet);
    return spreadsheet;
  }

  /** A removed connection: its source closes and its copy goes. */
  async forget(spreadsheetId: string): Promise<void> {
    this.#open.delete(spreadsheetId);
    await this.#replica.forget(spreadsheetId);
  }
}
