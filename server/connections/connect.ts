/**
 * Connecting a spreadsheet, the one use case behind `sheetport connect` and `POST /admin/connections`: the kind
 * is the one named or the one that recognises the input, the location is made canonical by the kind, and the
 * spreadsheet is read before it is registered, so one that cannot be read is never registered.
 */

import type { ConnectionRecord, Connections } from '../repositories/connections.ts';
import { kindFor, type SourceOptions } from '../sources/index.ts';
import type { SpreadsheetSnapshot } from '../sources/source.ts';

export interface ConnectInput {
  /** A path, an id or a URL, as the user typed it. */
  location: string;
  /** The kind's name, when the user said it (else the kind that recognises `location`). */
  kind?: string;
  /** Display name; default the spreadsheet's own title. */
  name?: string;
}

export interface Connected {
  connection: ConnectionRecord;
  snapshot: SpreadsheetSnapshot;
  /** False when the spreadsheet was registered already (connecting is idempotent). */
  created: boolean;
}

export async function connectSpreadsheet(
  connections: Connections,
  input: ConnectInput,
  sourceOptions: SourceOptions,
): Promise<Connected> {
  const kind = kindFor(input.location, input.kind);
  const resolved = await kind.resolveLocation(input.location);
  // A remote kind finds its login among the data dir's secrets (sourceOptions.secrets).
  const source = kind.open(resolved.location, sourceOptions);
  let snapshot: SpreadsheetSnapshot;
  try {
    snapshot = await source.read();
    // Only described (names, headers, row counts): its rows need not be made behind.
    for (const tab of snapshot.tabs) tab.onDemand?.stopBehind();
  } finally {
    await source.close().catch(() => {});
  }
  const existing = await connections.getByLocation(kind.name, resolved.location);
  const connection =
    existing ??
    (await connections.create({
      name: input.name?.trim() || snapshot.title || resolved.name,
      sourceKind: kind.name,
      idPrefix: kind.idPrefix,
      location: resolved.location,
      ...(kind.spreadsheetIdFor ? { spreadsheetId: kind.spreadsheetIdFor(resolved.location) } : {}),
    }));
  return { connection, snapshot, created: existing === null };
}
