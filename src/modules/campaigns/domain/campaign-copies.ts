import { DomainError } from '../../../common/errors/domain-error';
import type { Campaign, NewCampaign } from './campaign.entity';

/**
 * Which contacts of a campaign its copy (a follow-up) holds, read from each contact's columns
 * (docs/API-RULES.md, "Follow-ups and deletion"):
 * - ALL: every contact.
 * - FAILED: status FAILED, whatever the kind.
 * - NOT_DELIVERED: WhatsApp never confirmed the message on the phone: SENT without a delivery,
 *   read or reply, and FAILED `not_delivered` (WhatsApp refused it after the gateway took it).
 * - NOT_READ: SENT and never read (no read or played receipt, no reply).
 * - NOT_REPLIED: SENT and no reply within the reply window.
 * Delivery and read need receipts (the configuration's trackDelivery): without them every
 * sent message counts as not delivered and not read.
 */
export const COPY_MODES = ['ALL', 'FAILED', 'NOT_DELIVERED', 'NOT_READ', 'NOT_REPLIED'] as const;
export type CopyMode = (typeof COPY_MODES)[number];

/** The longest campaign name (campaigns.name). */
export const CAMPAIGN_NAME_MAX = 100;
const COPY_SUFFIX = ' (cópia)';

/** "<original> (cópia)", the original cut so that the whole fits the name's limit. */
export function defaultCopyName(original: string): string {
  return `${original.slice(0, CAMPAIGN_NAME_MAX - COPY_SUFFIX.length).trimEnd()}${COPY_SUFFIX}`;
}

/** What a copy's contacts came to: those copied, and those the block list left out. */
export interface CopiedContacts {
  copied: number;
  /** Numbers on the block list by a person or an import (when the company applies it). */
  blocked: number;
  /** Numbers that answered with an opt-out word: always left out. */
  optedOut: number;
}

/**
 * The draft a copy of `original` starts as: its message, media, poll, pauses, window, numbers,
 * notification phone and contact database, never its schedule (a date of the original's past;
 * the follow-up's own is set when it is edited or launched) nor anything it counted.
 */
export function copyOf(
  original: Campaign,
  name: string,
  gateway: NewCampaign['gateway'],
): NewCampaign {
  const longPause =
    original.longPauseEvery !== null
      ? {
          every: original.longPauseEvery,
          minSeconds: original.longPauseMin ?? 0,
          maxSeconds: original.longPauseMax ?? 0,
        }
      : null;
  return {
    companyId: original.companyId,
    name,
    description: original.description,
    isTest: original.isTest,
    isDraft: true,
    scheduledFor: null,
    type: original.type,
    messageContent: original.messageContent,
    mediaUrl: original.mediaUrl,
    mediaType: original.mediaType,
    fileName: original.fileName,
    caption: original.caption,
    pollData: original.pollData,
    template: original.template,
    gateway,
    databaseConfigId: original.databaseConfigId,
    minInterval: original.minInterval,
    maxInterval: original.maxInterval,
    notificationPhone: original.notificationPhone,
    sendingWindow: original.sendingWindow,
    longPause,
    warmFirst: original.warmFirst,
  };
}

/** No contact of the campaign matches the mode, or all that do are blocked: 409, nothing created. */
export class NothingToCopyError extends DomainError {
  constructor(mode: CopyMode, counts: CopiedContacts) {
    const left = counts.blocked + counts.optedOut;
    super(
      'CAMPAIGN.NOTHING_TO_COPY',
      'conflict',
      left > 0
        ? `Nenhum contato a copiar para ${mode}: os ${left} contato(s) que correspondem estão na lista de bloqueio (${counts.optedOut} por descadastro)`
        : `Nenhum contato da campanha corresponde a ${mode}; nada foi criado`,
    );
  }
}
