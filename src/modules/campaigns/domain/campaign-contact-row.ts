import type { CampaignContactStatus } from './campaign-contact-status';

/** A campaign's contact as the API lists it. */
export interface CampaignContactRow {
  id: string;
  phoneNumber: string;
  name: string;
  status: CampaignContactStatus;
  sentAt: Date | null;
  failedAt: Date | null;
  failureReason: string | null;
  retryCount: number;
  deliveredAt: Date | null;
  readAt: Date | null;
  playedAt: Date | null;
  deliveryError: string | null;
  sentText: string | null;
  repliedAt: Date | null;
  warm: boolean;
  failureKind: string | null;
  /** The number it is sent through (its sender's, in a pool). */
  senderGatewayConfigId: number;
  senderInstance: string;
}
