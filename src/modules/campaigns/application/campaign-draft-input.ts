import type { Campaign } from '../domain/campaign.entity';
import type { CreateCampaignCommand } from './campaigns.service';
import { type FieldErrors, templateInputOf } from './campaign-input';

/**
 * An edit of a campaign not sent yet (docs/API-RULES.md, "Drafts: edit and launch"): creation's
 * fields, each optional; a field left out keeps its value, null clears an optional one.
 */
export type UpdateCampaignCommand = {
  [K in keyof CreateCampaignCommand]?: CreateCampaignCommand[K] | null;
};

/** Fields every campaign has: an edit may change them, never clear them. */
const REQUIRED_FIELDS: ReadonlyArray<keyof CreateCampaignCommand> = [
  'name',
  'isTest',
  'isDraft',
  'warmFirst',
  'intervalMinSeconds',
  'intervalMaxSeconds',
  'gatewayConfigId',
  'gatewayUrl',
  'gatewayApiKey',
  'gatewayInstance',
  'contacts',
];

/** The forms of naming the numbers it sends through: one given replaces the campaign's. */
export const GATEWAY_FIELDS = [
  'gatewayConfigId',
  'gatewayConfigIds',
  'gatewayUrl',
  'gatewayApiKey',
  'gatewayInstance',
] as const;

/** The fields whose change has the media checked again. */
export const MEDIA_FIELDS = ['mediaUrl', 'mediaType', 'fileName'] as const;

/**
 * The campaign as the creation that would make it now: its stored definition as creation's
 * input, on its pool's numbers (`poolConfigIds`, in order) or its one number. Its time is
 * left out (an edit checks a new time only; a launch adds it) and so are its contacts, which
 * stay in the database.
 */
export function storedInputOf(
  campaign: Campaign,
  poolConfigIds: readonly number[] | null,
): CreateCampaignCommand {
  const input: CreateCampaignCommand = {
    name: campaign.name,
    description: campaign.description ?? undefined,
    isTest: campaign.isTest,
    isDraft: campaign.status === 'DRAFT',
    warmFirst: campaign.warmFirst,
    message: campaign.messageContent ?? undefined,
    mediaUrl: campaign.mediaUrl ?? undefined,
    mediaType: campaign.mediaType ?? undefined,
    fileName: campaign.fileName ?? undefined,
    caption: campaign.caption ?? undefined,
    pollData: campaign.pollData ?? undefined,
    template: templateInputOf(campaign.template),
    intervalMinSeconds: campaign.minInterval,
    intervalMaxSeconds: campaign.maxInterval,
    notificationPhone: campaign.notificationPhone ?? undefined,
    sendingWindow: campaign.sendingWindow ?? undefined,
    databaseConfigId: campaign.databaseConfigId ?? undefined,
    contacts: [],
    ...(poolConfigIds
      ? { gatewayConfigIds: [...poolConfigIds] }
      : { gatewayConfigId: campaign.gatewayConfigId }),
  };
  if (campaign.longPauseEvery !== null) {
    input.longPauseEvery = campaign.longPauseEvery;
    input.longPauseSeconds = [campaign.longPauseMin ?? 0, campaign.longPauseMax ?? 0];
  }
  return input;
}

/**
 * The creation input an edit amounts to: `stored` with the fields `patch` gives (null clears an
 * optional field; a gateway form given replaces the campaign's; `gatewayConfigIds: null` goes
 * back to one number, the pool's first). A new media URL has its type detected again unless
 * given; clearing the media clears its file name and caption unless given. The time and the
 * contacts are the caller's; `isDraft` may only repeat the status (launching is its own move).
 */
export function editedInputOf(
  stored: CreateCampaignCommand,
  patch: UpdateCampaignCommand,
): { input: CreateCampaignCommand; errors: FieldErrors } {
  const errors: FieldErrors = [];
  const merged: Record<string, unknown> = { ...stored };
  const gatewayGiven = GATEWAY_FIELDS.some((field) => patch[field] !== undefined);
  if (gatewayGiven) {
    GATEWAY_FIELDS.forEach((field) => delete merged[field]);
  }
  for (const [field, value] of Object.entries(patch) as Array<
    [keyof CreateCampaignCommand, unknown]
  >) {
    if (
      value === undefined ||
      field === 'contacts' ||
      field === 'scheduledFor' ||
      field === 'isDraft'
    ) {
      continue;
    }
    if (value === null && REQUIRED_FIELDS.includes(field)) {
      errors.push([field, 'não pode ser nulo']);
    } else if (value === null) {
      delete merged[field];
    } else {
      merged[field] = value;
    }
  }
  if (patch.gatewayConfigIds === null && GATEWAY_FIELDS.every((f) => merged[f] === undefined)) {
    merged.gatewayConfigId = stored.gatewayConfigIds?.[0] ?? stored.gatewayConfigId;
  }
  if (patch.mediaUrl !== undefined && patch.mediaType === undefined) {
    delete merged.mediaType;
  }
  if (patch.mediaUrl === null) {
    (['fileName', 'caption'] as const)
      .filter((f) => patch[f] === undefined)
      .forEach((f) => delete merged[f]);
  }
  if (patch.isDraft !== undefined && patch.isDraft !== null && patch.isDraft !== stored.isDraft) {
    errors.push([
      'isDraft',
      stored.isDraft
        ? 'um rascunho é lançado com POST /api/campaigns/{id}/launch'
        : 'uma campanha agendada não volta a rascunho; cancele-a se não deve sair',
    ]);
  }
  if (typeof patch.scheduledFor === 'string') {
    merged.scheduledFor = patch.scheduledFor;
  }
  return { input: merged as unknown as CreateCampaignCommand, errors };
}
