import { PartialType } from '@nestjs/swagger';
import { CreateCampaignDto } from './create-campaign.dto';

/**
 * The fields PUT /api/campaigns/{id} accepts: creation's, each optional (docs/API-RULES.md,
 * "Drafts: edit and launch"). A field left out keeps its value; null clears an optional one
 * and is refused for the ones every campaign has (name, contacts here; the others by the
 * service); `contacts` given replaces the whole list.
 */
export class UpdateCampaignDto extends PartialType(CreateCampaignDto, {
  skipNullProperties: false,
}) {}
