/**
 * Connections, the stored registration of each spreadsheet: a public spreadsheet id and an opaque userKey that
 * can stand in for it, the kind's name and its canonical location. store/connections.ts is the SQLite
 * implementation; it knows no kind (sources/index.ts does).
 */

/** The name of a source kind (see sources/index.ts). */
export type SourceKind = string;

export interface ConnectionRecord {
  userKey: string;
  /** The connection's one id (the stored row's key too). */
  spreadsheetId: string;
  name: string;
  sourceKind: SourceKind;
  /** Where the spreadsheet lives, canonical for its kind (a file's real path, a spreadsheet id). */
  location: string;
  publicRead: boolean;
  /** ISO 8601. */
  createdAt: string;
}

export interface CreateConnectionInput {
  name: string;
  sourceKind: SourceKind;
  /** Canonical for its kind: the same spreadsheet must always be given the same location. */
  location: string;
  /** Prefix of the spreadsheet id made up for it (the kind's). */
  idPrefix: string;
  /** The spreadsheet id to use instead of a made-up one (a Google spreadsheet keeps its own id). */
  spreadsheetId?: string;
}

export interface Connections {
  /** Register a spreadsheet; the same location again returns the existing connection. */
  create(input: CreateConnectionInput): Promise<ConnectionRecord>;
  list(): Promise<ConnectionRecord[]>;
  getByUserKey(userKey: string): Promise<ConnectionRecord | null>;
  getBySpreadsheetId(spreadsheetId: string): Promise<ConnectionRecord | null>;
  /** The connection registered for this canonical source location, if any. */
  getByLocation(sourceKind: SourceKind, location: string): Promise<ConnectionRecord | null>;
  /** Find by spreadsheet id, or by userKey. */
  resolve(spreadsheetIdOrUserKey: string): Promise<ConnectionRecord | null>;
  /** Remove by spreadsheet id or userKey; false when nothing matched. 409 `conflict` while webhooks watch it,
   * unless `force`. */
  remove(spreadsheetIdOrUserKey: string, options?: { force?: boolean }): Promise<boolean>;
  /** `remove`, saying which webhooks went with it (`force`); its change log and baselines go too. */
  removeWithWebhooks(
    spreadsheetIdOrUserKey: string,
    options?: { force?: boolean },
  ): Promise<{ removed: boolean; webhooksRemoved: string[] }>;
  /** Allow reads without an API key; false when there is no such connection. */
  setPublicRead(spreadsheetId: string, on: boolean): Promise<boolean>;
}
