// Standard Webhooks signatures: the signed content is `<webhook-id>.<webhook-timestamp>.<body>`, its HMAC-SHA256
// keyed with the bytes of the secret (the base64 after `whsec_`), sent as `v1,<base64>`; during a secret's
// rotation the old and the new secret each sign, space-separated in one webhook-signature header, so a receiver
// holding either verifies.
import { createHmac, randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '../../contract/webhook-events.ts';

/** Bytes of a new secret's key (the specification asks for 24 to 64). */
const SECRET_BYTES = 32;

export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret, 'base64');
}

/** `v1,<base64>` of one secret. */
export function webhookSignature(secret: string, messageId: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The webhook-* headers of one request, signed by every secret given (the current one first). */
export function signedHeaders(secrets: string[], messageId: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => webhookSignature(secret, messageId, timestamp, body)).join(' '),
  };
}
