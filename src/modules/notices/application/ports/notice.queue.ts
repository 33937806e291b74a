import type { Transaction } from '../../../../common/persistence/transaction';
export interface NoticeRequest {
  companyId: number;
  gatewayConfigId: number;
  phoneNumber: string;
  text: string;
  /** Why it is sent: campaign_completed, campaign_failed, instance_disconnected, automation_run… */
  reason: string;
  /** One notice per incident: a second enqueue with the same key is ignored. */
  dedupKey: string;
}

/** Notices are rows written with the state change that causes them; the notice worker sends them. */
export abstract class NoticeQueue {
  abstract enqueue(tx: Transaction, notice: NoticeRequest): Promise<void>;
}
