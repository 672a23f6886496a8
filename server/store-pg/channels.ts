/**
 * The LISTEN/NOTIFY channels instances tell each other through. A NOTIFY sent inside a transaction is delivered
 * when it commits, so a listener never hears of a change it cannot yet read.
 */
export const CHANNELS = {
  /** Payload: the spreadsheet id. A change of it was recorded (its change log, baselines and outbox moved). */
  recorded: 'sheetport_recorded',
  /** Payload: empty. A delivery was queued, replayed or resumed: workers claim what is due. */
  deliveries: 'sheetport_deliveries',
  /** Payload: empty. Keys, webhooks or connections changed: caches read them again. */
  registry: 'sheetport_registry',
  /** Payload: the secret's name. A secret in the database changed. */
  secrets: 'sheetport_secrets',
} as const;
