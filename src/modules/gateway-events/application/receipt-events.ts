import { Injectable, Logger } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { CompanySettingsService } from '../../auth/application/company-settings.service';
import {
  AppliedReceipts,
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

/** A Cloud API number a `failed` status proved cannot send (its account, token, template). */
export interface BlockedNumber {
  companyId: number;
  gatewayConfigId: number;
  reason: string;
}

/** What a batch's receipts did. */
export interface AppliedReceiptEvents {
  /** The events to try again later (receipts whose message is not known yet). */
  waiting: Set<string>;
  /** Messages WhatsApp refused after accepting them. */
  refused: number;
  /** Uncertain sends a Cloud API status settled as SENT. */
  reconciled: number;
  /** Numbers whose campaigns must pause once the batch is committed (pauseBlocked). */
  blocked: BlockedNumber[];
}

/** A batch's receipts, read once: what each statement of `apply` takes. */
interface CollectedReceipts {
  receipts: Array<{ event: StoredGatewayEvent; receipt: Receipt }>;
  callbacks: CallbackReceipt[];
  billed: BilledMessage[];
  cloudConfigs: Set<number>;
  blocked: BlockedNumber[];
}

/**
 * The receipts of a batch (messages.update), set-based: Evolution's, and the Cloud API's
 * statuses translated into the same rows (meta-webhook.ts). A Cloud API status that names its
 * contact (biz_opaque_callback_data) also settles that contact's uncertain send as SENT with
 * its message id, so that the receipt then applies to it like any other. A refusal through
 * Evolution feeds the instance's reach-out lock; one through the Cloud API does not: Meta
 * says why by its code (undeliverable, re-engagement…), and a number is not locked for it; a
 * code that proves the account cannot send (payment, token, a paused template) pauses the
 * number's campaigns, as the same answer to a send does.
 */
@Injectable()
export class ReceiptEvents {
  private readonly logger = new Logger(ReceiptEvents.name);

  constructor(
    private readonly campaigns: CampaignDeliveryEvents,
    private readonly settings: CompanySettingsService,
  ) {}

  async apply(tx: Transaction, batch: StoredGatewayEvent[]): Promise<AppliedReceiptEvents> {
    const { receipts, callbacks, billed, cloudConfigs, blocked } = collectReceipts(batch);
    const { matched, refused, reconciled } = await this.applyAndSettle(
      tx,
      receipts.map((r) => r.receipt),
      callbacks,
      billed,
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
    return { waiting, refused: refused.length, reconciled, blocked };
  }

  /**
   * The receipts applied, and the uncertain sends their statuses settle: only a status whose
   * message id matched no contact can settle one (a contact that has the id is not uncertain),
   * so the statuses of sent contacts, nearly all of them, cost no lookup of their callback;
   * the receipts of the contacts settled then apply to them, as to any other.
   */
  private async applyAndSettle(
    tx: Transaction,
    receipts: Receipt[],
    callbacks: CallbackReceipt[],
    billed: BilledMessage[],
  ): Promise<AppliedReceipts & { reconciled: number }> {
    const applied = await this.campaigns.applyReceipts(tx, receipts, billed);
    const unmatched = callbacks.filter((callback) => !applied.matched.has(callback.keyId));
    const reconciled = await this.campaigns.resolveByCallback(tx, unmatched);
    if (reconciled === 0) {
      return { ...applied, reconciled };
    }
    const settled = new Set(unmatched.map((callback) => callback.keyId));
    const again = await this.campaigns.applyReceipts(
      tx,
      receipts.filter((receipt) => settled.has(receipt.keyId)),
      billed.filter((message) => settled.has(message.keyId)),
    );
    return {
      matched: new Set([...applied.matched, ...again.matched]),
      refused: [...applied.refused, ...again.refused],
      reconciled,
    };
  }

  /** After the batch's commit: the blocked numbers' ACTIVE campaigns pause, each number once. */
  async pauseBlocked(blocked: BlockedNumber[]): Promise<void> {
    const byConfig = new Map(blocked.map((number) => [number.gatewayConfigId, number]));
    for (const { companyId, gatewayConfigId, reason } of byConfig.values()) {
      const paused = await this.campaigns.pauseActiveCampaigns(
        companyId,
        [gatewayConfigId],
        reason,
      );
      this.logger.warn(
        { companyId, gatewayConfigId, campaigns: paused },
        'Cloud API number refused by Meta for its account: its campaigns paused',
      );
    }
  }
}

function collectReceipts(batch: StoredGatewayEvent[]): CollectedReceipts {
  const collected: CollectedReceipts = {
    receipts: [],
    callbacks: [],
    billed: [],
    cloudConfigs: new Set(),
    blocked: [],
  };
  for (const event of batch.filter((e) => e.event === 'messages.update')) {
    const data = eventData(event.payload);
    const found = receiptOf(data);
    if (!found) {
      continue;
    }
    const title = titleOf(data);
    const receipt = {
      companyId: event.companyId,
      ...found,
      at: atOf(event),
      title,
      refusalKind: refusalKindIn(data, found.code),
    };
    collected.receipts.push({ event, receipt });
    if (data.cloud === true) {
      collected.cloudConfigs.add(event.gatewayConfigId);
      if (found.code !== null && kindOfMetaCode(Number(found.code)) === 'account_blocked') {
        const { companyId, gatewayConfigId } = event;
        const reason = accountBlockedReason(found.code, title);
        collected.blocked.push({ companyId, gatewayConfigId, reason });
      }
    }
    if (typeof data.contactId === 'string') {
      collected.callbacks.push({ ...receipt, contactId: data.contactId });
    }
    const category = chargedCategoryOf(data);
    if (category) {
      collected.billed.push({ companyId: event.companyId, keyId: receipt.keyId, category });
    }
  }
  return collected;
}

/** The pause's reason, in the words the engine gives the same answer to a send. */
function accountBlockedReason(code: string, title: string | null): string {
  const detail = [`código ${code}`, title].filter(Boolean).join(': ');
  return `A conta da API oficial não pode enviar: ${detail}`.slice(0, 500);
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
