import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { CompanySettingsService } from '../../auth/application/company-settings.service';
import {
  BilledMessage,
  CallbackReceipt,
  CampaignDeliveryEvents,
  Receipt,
} from '../../campaigns/application/campaign-delivery-events';
import { PricedCategory, pricedCategoryOf } from '../../../common/messaging/message-prices';
import { refusalKindOf, type RefusalKind } from '../../campaigns/domain/delivery-receipt';
import { kindOfMetaCode } from '../../gateway/domain/meta-error-codes';
import { receiptOf } from '../domain/gateway-event';
import { atOf } from './inbound-messages';
import { eventData, StoredGatewayEvent } from './ports/gateway-events.repository';

/** A receipt whose send is not recorded yet is tried again this many times. */
export const EARLY_RECEIPT_ATTEMPTS = 30;

/** What a batch's receipts did. */
export interface AppliedReceiptEvents {
  /** The events to try again later (receipts whose message is not known yet). */
  waiting: Set<string>;
  /** Messages WhatsApp refused after accepting them. */
  refused: number;
  /** Uncertain sends a Cloud API status settled as SENT. */
  reconciled: number;
}

/**
 * The receipts of a batch (messages.update), set-based: Evolution's, and the Cloud API's
 * statuses translated into the same rows (meta-webhook.ts). A Cloud API status that names its
 * contact (biz_opaque_callback_data) first settles that contact's uncertain send as SENT with
 * its message id, so that the receipt then applies to it like any other. A refusal through
 * Evolution feeds the instance's reach-out lock; one through the Cloud API does not: Meta
 * says why by its code (undeliverable, re-engagement…), and a number is not locked for it.
 */
@Injectable()
export class ReceiptEvents {
  constructor(
    private readonly campaigns: CampaignDeliveryEvents,
    private readonly settings: CompanySettingsService,
  ) {}

  async apply(tx: Transaction, batch: StoredGatewayEvent[]): Promise<AppliedReceiptEvents> {
    const receipts: Array<{ event: StoredGatewayEvent; receipt: Receipt }> = [];
    const callbacks: CallbackReceipt[] = [];
    const billed: BilledMessage[] = [];
    const cloudConfigs = new Set<number>();
    for (const event of batch.filter((e) => e.event === 'messages.update')) {
      const data = eventData(event.payload);
      const found = receiptOf(data);
      if (!found) {
        continue;
      }
      const receipt = {
        companyId: event.companyId,
        ...found,
        at: atOf(event),
        title: titleOf(data),
        refusalKind: refusalKindIn(data, found.code),
      };
      receipts.push({ event, receipt });
      if (data.cloud === true) {
        cloudConfigs.add(event.gatewayConfigId);
      }
      if (typeof data.contactId === 'string') {
        callbacks.push({ ...receipt, contactId: data.contactId });
      }
      const category = chargedCategoryOf(data);
      if (category) {
        billed.push({ companyId: event.companyId, keyId: receipt.keyId, category });
      }
    }
    const reconciled = await this.campaigns.resolveByCallback(tx, callbacks);
    await this.campaigns.recordBilled(tx, billed);
    const { matched, refused } = await this.campaigns.applyReceipts(
      tx,
      receipts.map((r) => r.receipt),
    );
    const locking = refused.filter((send) => !cloudConfigs.has(send.gatewayConfigId));
    if (locking.length > 0) {
      await this.campaigns.refusalsReceived(
        tx,
        locking,
        async (companyId) => (await this.settings.get(companyId)).effectiveReachOut,
      );
    }
    const waiting = new Set(
      receipts
        .filter((r) => !matched.has(r.receipt.keyId) && r.event.attempts < EARLY_RECEIPT_ATTEMPTS)
        .map((r) => r.event.id),
    );
    return { waiting, refused: refused.length, reconciled };
  }
}

/** The Cloud API's error title of a failed status (meta-webhook.ts), else null. */
function titleOf(data: Record<string, unknown>): string | null {
  return data.status === 'ERROR' && typeof data.title === 'string' ? data.title : null;
}

/**
 * The price category of a Cloud API status whose message Meta charges for: per-message
 * pricing says so with `type: regular` (free_customer_service and free_entry_point are not
 * charged); a status without a type falls back on the older `billable`.
 */
export function chargedCategoryOf(data: Record<string, unknown>): PricedCategory | null {
  if (data.cloud !== true || typeof data.category !== 'string') {
    return null;
  }
  const charged =
    data.pricingType === undefined ? data.billable === true : data.pricingType === 'regular';
  return charged ? pricedCategoryOf(data.category) : null;
}

/** A Cloud API failure's kind by Meta's code (the person's reasons); any other: not_delivered. */
function refusalKindIn(data: Record<string, unknown>, code: string | null): RefusalKind {
  return data.cloud === true && code !== null
    ? refusalKindOf(kindOfMetaCode(Number(code)))
    : 'not_delivered';
}
