import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export interface GatewayConfigFields {
  name: string;
  url: string;
  /** SecretBox text; the plain key exists only in memory, on the way to the gateway. */
  apiKeyEncrypted: string;
  instance: string;
}

/** A saved gateway instance that campaigns, automations and gateway sync refer to by id. */
@Entity({ name: 'gateway_configs' })
export class GatewayConfig implements GatewayConfigFields {
  @PrimaryGeneratedColumn({ name: 'id' }) id!: number;
  @Column({ name: 'company_id', type: 'integer' }) companyId!: number;
  @Column({ name: 'name', type: 'varchar', length: 100 }) name!: string;
  @Column({ name: 'url', type: 'varchar', length: 500 }) url!: string;
  @Column({ name: 'api_key_encrypted', type: 'text' }) apiKeyEncrypted!: string;
  @Column({ name: 'instance', type: 'varchar', length: 100 }) instance!: string;
  /** The service registered its own webhook on the instance to hear receipts and replies. */
  @Column({ name: 'track_delivery', type: 'boolean', default: false }) trackDelivery!: boolean;
  /** SHA-256 (hex) of the secret header the gateway sends with each event; null when not tracking. */
  @Column({ name: 'events_secret_hash', type: 'varchar', length: 64, nullable: true })
  eventsSecretHash!: string | null;
  /** The instance's state as its last connection.update event said (open, close, …). */
  @Column({ name: 'instance_state', type: 'varchar', length: 20, nullable: true })
  instanceState!: string | null;
  @Column({ name: 'instance_state_reason', type: 'integer', nullable: true })
  instanceStateReason!: number | null;
  @Column({ name: 'instance_state_at', type: 'timestamptz', nullable: true })
  instanceStateAt!: Date | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;

  static create(companyId: number, fields: GatewayConfigFields, now: Date): GatewayConfig {
    const config = new GatewayConfig();
    config.companyId = companyId;
    config.name = fields.name;
    config.url = fields.url;
    config.apiKeyEncrypted = fields.apiKeyEncrypted;
    config.instance = fields.instance;
    config.trackDelivery = false;
    config.eventsSecretHash = null;
    config.instanceState = null;
    config.instanceStateReason = null;
    config.instanceStateAt = null;
    config.createdAt = now;
    config.updatedAt = now;
    return config;
  }

  /** Our webhook is registered on the instance with a new secret, known here by its hash. */
  startTracking(secretHash: string, now: Date): void {
    this.trackDelivery = true;
    this.eventsSecretHash = secretHash;
    this.updatedAt = now;
  }

  /** Our webhook is gone from the instance: events for this configuration are refused. */
  stopTracking(now: Date): void {
    if (this.trackDelivery || this.eventsSecretHash) {
      this.trackDelivery = false;
      this.eventsSecretHash = null;
      this.updatedAt = now;
    }
  }

  /** Applies the given fields; updatedAt moves only when something actually changed. */
  change(changes: Partial<GatewayConfigFields>, now: Date): void {
    let changed = false;
    for (const field of ['name', 'url', 'apiKeyEncrypted', 'instance'] as const) {
      const value = changes[field];
      if (value !== undefined && value !== this[field]) {
        this[field] = value;
        changed = true;
      }
    }
    if (changed) {
      this.updatedAt = now;
    }
  }
}
