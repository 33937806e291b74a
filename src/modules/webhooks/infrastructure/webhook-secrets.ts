import { Injectable } from '@nestjs/common';
import { ExpiringMap } from '../../../common/caching/expiring-map';
import { SecretBox } from '../../../common/crypto/secret-box';
import { WebhookSecrets } from '../application/ports/webhook-secrets';

const MAX_CACHED = 1000;
/** Opened secrets do not stay in memory for good once their webhook goes quiet. */
const CACHE_TTL_MS = 60 * 60 * 1000;

@Injectable()
export class SealedWebhookSecrets implements WebhookSecrets {
  private readonly opened = new ExpiringMap<string, string>(CACHE_TTL_MS, MAX_CACHED);

  constructor(private readonly box: SecretBox) {}

  seal(companyId: number, secret: string): string {
    return this.box.encrypt(secret, context(companyId));
  }

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
