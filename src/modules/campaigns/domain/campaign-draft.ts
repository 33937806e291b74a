import type { PollDefinition } from '../../../common/messaging/poll';
import type { SendingWindow } from '../../../common/time/sending-window';
import type { CampaignType } from './campaign-status';
import type { CampaignTemplate } from './campaign-template';

export type CampaignMediaType = 'image' | 'video' | 'audio' | 'document';

/** What a campaign sends: its type and the parts of its message. */
export interface CampaignContent {
  type: CampaignType;
  messageContent: string | null;
  mediaUrl: string | null;
  mediaType: CampaignMediaType | null;
  fileName: string | null;
  caption: string | null;
  pollData: PollDefinition | null;
  /** A Cloud API campaign's approved template, sent instead of a message; null otherwise. */
  template: CampaignTemplate | null;
}

/**
 * What a person defines of a campaign, at its creation and in an edit while it is not sent yet
 * (a DRAFT or SCHEDULED campaign: docs/API-RULES.md, "Drafts: edit and launch"): everything
 * but its company and its status.
 */
export interface CampaignDefinition extends CampaignContent {
  name: string;
  description: string | null;
  isTest: boolean;
  scheduledFor: Date | null;
  gateway: { id: number; name: string; url: string; instance: string };
  databaseConfigId: number | null;
  minInterval: number;
  maxInterval: number;
  notificationPhone: string | null;
  sendingWindow: SendingWindow | null;
  longPause: { every: number; minSeconds: number; maxSeconds: number } | null;
  /** Contacts who talked with the number lately go first; absent: false. */
  warmFirst?: boolean;
}

/** The entity's columns a definition sets, the gateway's snapshot included. */
export function definitionColumnsOf(
  definition: CampaignDefinition,
): Record<(typeof DEFINITION_PROPERTIES)[number], unknown> {
  return {
    name: definition.name,
    description: definition.description,
    isTest: definition.isTest,
    type: definition.type,
    messageContent: definition.messageContent,
    mediaUrl: definition.mediaUrl,
    mediaType: definition.mediaType,
    fileName: definition.fileName,
    caption: definition.caption,
    pollData: definition.pollData,
    template: definition.template,
    gatewayConfigId: definition.gateway.id,
    gatewayName: definition.gateway.name,
    gatewayUrl: definition.gateway.url,
    gatewayInstance: definition.gateway.instance,
    databaseConfigId: definition.databaseConfigId,
    minInterval: definition.minInterval,
    maxInterval: definition.maxInterval,
    notificationPhone: definition.notificationPhone,
    sendingWindow: definition.sendingWindow,
    longPauseEvery: definition.longPause?.every ?? null,
    longPauseMin: definition.longPause?.minSeconds ?? null,
    longPauseMax: definition.longPause?.maxSeconds ?? null,
    warmFirst: definition.warmFirst ?? false,
    scheduledFor: definition.scheduledFor,
  };
}

/** The entity's properties a definition sets (definitionColumnsOf's keys), for an edit's save. */
export const DEFINITION_PROPERTIES = [
  'name',
  'description',
  'isTest',
  'type',
  'messageContent',
  'mediaUrl',
  'mediaType',
  'fileName',
  'caption',
  'pollData',
  'template',
  'gatewayConfigId',
  'gatewayName',
  'gatewayUrl',
  'gatewayInstance',
  'databaseConfigId',
  'minInterval',
  'maxInterval',
  'notificationPhone',
  'sendingWindow',
  'longPauseEvery',
  'longPauseMin',
  'longPauseMax',
  'warmFirst',
  'scheduledFor',
] as const;

/** A draft's launch: `schedule` when it has a time, `launch` (send now) when it has none. */
export function launchActionOf(draft: { scheduledFor: Date | null }): 'launch' | 'schedule' {
  return draft.scheduledFor ? 'schedule' : 'launch';
}

/**
 * A new campaign before any move: nothing counted, watched or sent, on one number
 * (CampaignPools makes the pools), not launched (Campaign.create launches it unless a draft).
 */
export const NOTHING_DONE_YET = {
  waitingReason: null,
  launchedAt: null,
  startedAt: null,
  pausedAt: null,
  completedAt: null,
  failureReason: null,
  pauseReason: null,
  nextSendAt: null,
  automationRunId: null,
  internalErrorStreak: 0,
  sendFailureStreak: 0,
  watchedSends: 0,
  watchedRefusals: 0,
  unknownOutcomeContacts: 0,
  deliveredContacts: 0,
  repliedContacts: 0,
  readContacts: 0,
  optedOutContacts: 0,
  totalContacts: 0,
  sentContacts: 0,
  failedContacts: 0,
  blockedContactsRemoved: 0,
  progressStep: 0,
  poolId: null,
  senderLostAt: null,
  senderLostReason: null,
  senderLostCause: null,
} as const;
