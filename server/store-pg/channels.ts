/**
 * The LISTEN/NOTIFY channels instances tell each other through. A NOTIFY sent inside a transaction is delivered
 * when it commits, so a listener never hears of a change it cannot yet read.
 */
export const CHANNELS = {
  /** Payload: `recordedPayload`. A change of a spreadsheet was recorded (its change log, baselines and outbox
   * moved) at a source version: an instance whose copy is of another version reads it again. */
  recorded: 'sheetport_recorded',
  /** Payload: empty. A delivery was queued, replayed or resumed: workers claim what is due. */
  deliveries: 'sheetport_deliveries',
  /** Payload: empty. Keys, webhooks or connections changed: caches read them again. */
  registry: 'sheetport_registry',
  /** Payload: the secret's name. A secret in the database changed. */
  secrets: 'sheetport_secrets',
} as const;

/** The `recorded` channel's payload: the spreadsheet id and the source version recorded, as JSON. */
export function recordedPayload(spreadsheetId: string, version: string): string {
  return JSON.stringify({ spreadsheetId, version });
}

/** A `recorded` payload read back; null for anything else (an older instance's bare id counts, version unknown). */
export function readRecordedPayload(
  payload: string,
): { spreadsheetId: string; version: string | null } | null {
  if (!payload) return null;
  if (!payload.startsWith('{')) return { spreadsheetId: payload, version: null };
  try {
    const { spreadsheetId, version } = JSON.parse(payload) as { spreadsheetId?: unknown; version?: unknown };
    if (typeof spreadsheetId !== 'string') return null;
    return { spreadsheetId, version: typeof version === 'string' ? version : null };
  } catch {
    return null;
  }
}
