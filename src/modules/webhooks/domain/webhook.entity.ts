import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { WebhookEvent } from './webhook-events';
import { Timestamped } from '../../../common/persistence/timestamped';

/** How long deliveries keep carrying a signature made with the previous secret after a rotation. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

export interface WebhookSettings {
  url: string;
  events: WebhookEvent[];
  isActive: boolean;
}

/** A company's webhook target: where its campaign events are POSTed, signed with its secret. */
@Entity({ name: 'webhooks' })
@Index('webhooks_company_key', ['companyId'], { unique: true })
@Check('webhooks_events_check', 'cardinality(events) > 0')
export class Webhook extends Timestamped implements WebhookSettings {
  @PrimaryGeneratedColumn({ name: 'id' }) id!: number;
  @Column({ name: 'company_id', type: 'integer' })
  @ForeignKey('companies', { name: 'webhooks_company_id_fkey', onDelete: 'CASCADE' })
  companyId!: number;
  @Column({ name: 'url', type: 'varchar', length: 2000 }) url!: string;
  @Column({ name: 'events', type: 'text', array: true }) events!: WebhookEvent[];
  @Column({ name: 'is_active', type: 'boolean' }) isActive!: boolean;
  /** SecretBox text of the whsec_ secret; the plain secret is shown once, then only signs. */
  @Column({ name: 'secret_encrypted', type: 'text' }) secretEncrypted!: string;
  @Column({ name: 'previous_secret_encrypted', type: 'text', nullable: true })
  previousSecretEncrypted!: string | null;
  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  static create(
    companyId: number,
    settings: WebhookSettings,
    sealedSecret: string,
    now: Date,
  ): Webhook {
    const webhook = new Webhook();
    webhook.companyId = companyId;
    webhook.url = settings.url;
    webhook.events = [...settings.events];
    webhook.isActive = settings.isActive;
    webhook.secretEncrypted = sealedSecret;
    webhook.previousSecretEncrypted = null;
    webhook.previousSecretExpiresAt = null;
    webhook.createdAt = now;
    webhook.updatedAt = now;
    return webhook;
  }

  /** PUT replaces the settings; the secret stays. */
  reconfigure(settings: WebhookSettings, now: Date): void {
    this.url = settings.url;
    this.events = [...settings.events];
    this.isActive = settings.isActive;
    this.updatedAt = now;
  }

  /**
   * The new secret signs from now on; the one it replaces keeps signing alongside it (a second
   * signature in the header) for PREVIOUS_SECRET_GRACE_MS, so receivers can switch without a gap.
   */
  rotateSecret(sealedSecret: string, now: Date): void {
    this.previousSecretEncrypted = this.secretEncrypted;
    this.previousSecretExpiresAt = new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS);
    this.secretEncrypted = sealedSecret;
    this.updatedAt = now;
  }

  /** When the previous secret stops signing; null when none signs any more. */
  previousSecretValidUntil(now: Date): Date | null {
    return this.previousSecretEncrypted &&
      this.previousSecretExpiresAt &&
      this.previousSecretExpiresAt > now
      ? this.previousSecretExpiresAt
      : null;
  }
}
