import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

// Standard Webhooks signatures (https://www.standardwebhooks.com), made by the specification's
// own library: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the base64 part
// of a `whsec_` secret.

/** A new signing secret: `whsec_` and 32 random bytes in base64, as the specification writes them. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The webhook-signature header: one signature per secret, space-separated, so that a receiver
 * still holding the previous secret of a rotation verifies as well as one holding the new.
 */
export function signatureHeader(secrets: readonly string[], eventId: string, timestamp: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(eventId, timestamp, body)).join(' ');
}
