import { Injectable } from '@nestjs/common';
import { ExpiringMap } from '../../../common/caching/expiring-map';
import { SecretBox } from '../../../common/crypto/secret-box';
import { WebhookSecrets } from '../application/ports/webhook-secrets';

const MAX_CACHED = 1000;
/** Opened secrets do not stay in memory for good once their webhook goes quiet. */
const CACHE_TTL_MS = 60 * 60 * 1000;

/**
 * Webhook secrets at rest: sealed with the SecretBox, bound to their company (a sealed value
 * copied to another company does not open). Opened values are kept in memory by their sealed
 * text, so a busy worker does not decrypt per delivery; a rotated secret has a new sealed text.
 */
@Injectable()
export class SealedWebhookSecrets implements WebhookSecrets {
  private readonly opened = new ExpiringMap<string, string>(CACHE_TTL_MS, MAX_CACHED);

  constructor(private readonly box: SecretBox) {}

  seal(companyId: number, secret: string): string {
    return this.box.encrypt(secret, context(companyId));
  }

  /** Throws SecretBoxError when it does not open (another ENCRYPTION_KEY, tampered). */
  open(companyId: number, sealed: string): string {
    const key = `${companyId}:${sealed}`;
    const cached = this.opened.get(key);
    if (cached) {
      return cached.value;
    }
    const secret = this.box.decrypt(sealed, context(companyId));
    this.opened.set(key, secret);
    return secret;
  }
}

function context(companyId: number): string {
  return `webhook:${companyId}`;
}
