/**
 * Registering a webhook and rotating its secret: the use cases the API and the CLI share. The secret is made
 * here (webhooks own its format, see secret.ts) and handed to the store, which only keeps it, sealed.
 */
import type { CreateWebhookInput, WebhookRecord, WebhookStore } from '../store/webhooks.ts';
import { generateSecret } from './secret.ts';

/** The new webhook and its secret, which is shown this once. */
export function registerWebhook(
  store: WebhookStore,
  input: Omit<CreateWebhookInput, 'secret'>,
): { record: WebhookRecord; secret: string } {
  const secret = generateSecret();
  return { record: store.create({ ...input, secret }), secret };
}

/** A new secret, shown this once; null when there is no such webhook. */
export function rotateWebhookSecret(store: WebhookStore, id: string): string | null {
  const secret = generateSecret();
  return store.rotateSecret(id, secret) ? secret : null;
}
