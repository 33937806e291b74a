import { Injectable } from '@nestjs/common';
import { CompanySession } from '../../../common/session/company-session';
import { InvalidInputError } from '../../../common/errors/domain-error';
import { ResourceNotFoundError } from '../../../common/tenancy/owned-resource';
import type { CampaignContactRow } from '../domain/campaign-contact-row';
import type { CampaignContactFilters } from '../domain/campaign-contact-filters';
import type { CampaignContactExportRow } from '../domain/campaign-contact-export';
import { CampaignsRepository } from '../infrastructure/campaigns.repository';
import { CampaignContactsRepository } from '../infrastructure/campaign-contacts.repository';

/** Reading a campaign's contacts: its pages and its export. */
@Injectable()
export class CampaignContactsService {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly contacts: CampaignContactsRepository,
  ) {}

  async page(
    session: CompanySession,
    id: number,
    filters: CampaignContactFilters,
    page: { page: number; size: number },
  ): Promise<{ items: CampaignContactRow[]; total: number }> {
    await this.assertReadable(session, id);
    return this.contacts.contactsPage(session.companyId, id, filters, page);
  }

  /**
   * The contacts the filters match, in batches, once the campaign is known to be the
   * company's: every refusal comes before the first byte of the file.
   */
  async export(
    session: CompanySession,
    id: number,
    filters: CampaignContactFilters,
  ): Promise<AsyncGenerator<CampaignContactExportRow[]>> {
    await this.assertReadable(session, id);
    return this.contacts.exportRows(session.companyId, id, filters);
  }

  /** The contract answers a missing campaign with 400 on these routes (and 403 for another company's). */
  private async assertReadable(session: CompanySession, id: number): Promise<void> {
    try {
      await this.campaigns.findOwnedOrFail(session.companyId, id);
    } catch (error) {
      if (error instanceof ResourceNotFoundError) {
        throw new InvalidInputError('CAMPAIGN.NOT_FOUND', 'Campanha não encontrada');
      }
      throw error;
    }
  }
}
