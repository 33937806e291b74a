/**
 * Webhook secrets at rest: sealed with the SecretBox, bound to their company (a sealed value
 * copied to another company does not open). Opened values are kept in memory by their sealed
 * text, so a busy worker does not decrypt per delivery; a rotated secret has a new sealed text.
 */
export abstract class WebhookSecrets {
  abstract seal(companyId: number, secret: string): string;
  /** Throws SecretBoxError when it does not open (another ENCRYPTION_KEY, tampered). */
  abstract open(companyId: number, sealed: string): string;
}
