import { Injectable } from '@nestjs/common';
import { CompanySession } from '../../../common/session/company-session';
import { InvalidInputError } from '../../../common/errors/domain-error';
import { ResourceNotFoundError } from '../../../common/tenancy/owned-resource';
import type { CampaignContactRow } from '../domain/campaign-contact-row';
import { CampaignsRepository } from '../infrastructure/campaigns.repository';
import { CampaignContactsRepository } from '../infrastructure/campaign-contacts.repository';

/** Reading a campaign's contacts: its pages. */
@Injectable()
export class CampaignContactsService {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly contacts: CampaignContactsRepository,
  ) {}

  /** The contract answers a missing campaign with 400 on this endpoint (and 403 for another company's). */
  async page(
    session: CompanySession,
    id: number,
    page: number,
    size: number,
  ): Promise<{ items: CampaignContactRow[]; total: number }> {
    try {
      await this.campaigns.findOwnedOrFail(session.companyId, id);
    } catch (error) {
      if (error instanceof ResourceNotFoundError) {
        throw new InvalidInputError('CAMPAIGN.NOT_FOUND', 'Campanha não encontrada');
      }
      throw error;
    }
    return this.contacts.contactsPage(session.companyId, id, page, size);
  }
}
