import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';

export interface SubscriptionFields {
  subscriptionId: string | null;
  payerId: string | null;
  subscriptionStatus: string | null;
  subscriptionReason: string | null;
  externalReference: string | null;
  preapprovalPlanId: string | null;
  subscriptionStartDate: Date | null;
  nextPaymentDate: Date | null;
  collectorId: string | null;
  subscriptionInitPoint: string | null;
  transactionAmount: string | null;
  frequencyType: string | null;
}

/** The payment provider's view of a company's plan, as the checkout flow last wrote it. */
@Entity({ name: 'company_subscriptions' })
export class CompanySubscription implements SubscriptionFields {
  @PrimaryColumn({ name: 'company_id', type: 'integer' })
  @ForeignKey('companies', { name: 'company_subscriptions_company_id_fkey', onDelete: 'CASCADE' })
  companyId!: number;
  @Column({ name: 'subscription_id', type: 'varchar', length: 100, nullable: true })
  subscriptionId!: string | null;
  @Column({ name: 'payer_id', type: 'varchar', length: 100, nullable: true }) payerId!:
    string | null;
  @Column({ name: 'status', type: 'varchar', length: 40, nullable: true }) subscriptionStatus!:
    string | null;
  @Column({ name: 'reason', type: 'varchar', length: 255, nullable: true }) subscriptionReason!:
    string | null;
  @Column({ name: 'external_reference', type: 'varchar', length: 255, nullable: true })
  externalReference!: string | null;
  @Column({ name: 'preapproval_plan_id', type: 'varchar', length: 100, nullable: true })
  preapprovalPlanId!: string | null;
  @Column({ name: 'start_date', type: 'timestamptz', nullable: true })
  subscriptionStartDate!: Date | null;
  @Column({ name: 'next_payment_date', type: 'timestamptz', nullable: true })
  nextPaymentDate!: Date | null;
  @Column({ name: 'collector_id', type: 'varchar', length: 100, nullable: true }) collectorId!:
    string | null;
  @Column({ name: 'init_point', type: 'varchar', length: 500, nullable: true })
  subscriptionInitPoint!: string | null;
  @Column({ name: 'transaction_amount', type: 'numeric', precision: 14, scale: 2, nullable: true })
  transactionAmount!: string | null;
  @Column({ name: 'frequency_type', type: 'varchar', length: 40, nullable: true }) frequencyType!:
    string | null;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;

  static for(companyId: number, fields: SubscriptionFields, now: Date): CompanySubscription {
    const subscription = new CompanySubscription();
    subscription.companyId = companyId;
    subscription.replace(fields, now);
    return subscription;
  }

  replace(fields: SubscriptionFields, now: Date): void {
    Object.assign(this, fields);
    this.updatedAt = now;
  }
}
