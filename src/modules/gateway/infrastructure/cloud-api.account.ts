import { Injectable } from '@nestjs/common';
import { CloudApiAccount, CloudApiNumber } from '../application/ports/cloud-api-account';
import { ListedTemplate, templateFromMeta } from '../domain/gateway-template';
import type { CloudApiTarget } from '../domain/messaging-gateway';
import { GraphApiClient } from './cloud-api.client';

const READ_TIMEOUT_MS = 15_000;
/**
 * The fields of the phone number node (WhatsApp Business Phone Number reference):
 * `messaging_limit_tier` is the tier of unique people a day (TIER_250 … TIER_UNLIMITED).
 */
const NUMBER_FIELDS = 'display_phone_number,verified_name,quality_rating,messaging_limit_tier';
/** Meta's page size for templates goes to 100 a page by `limit`; a runaway paging stops here. */
const TEMPLATES_PAGE = 100;
const MAX_TEMPLATE_PAGES = 100;

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function numberOf(data: unknown): CloudApiNumber {
  const node = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  return {
    displayPhoneNumber: text(node.display_phone_number)?.slice(0, 32) ?? null,
    verifiedName: text(node.verified_name)?.slice(0, 200) ?? null,
    qualityRating: text(node.quality_rating)?.slice(0, 10) ?? null,
    messagingLimitTier: text(node.messaging_limit_tier)?.slice(0, 30) ?? null,
  };
}

interface TemplatesPage {
  templates: ListedTemplate[];
  /** The cursor of the next page; null on the last. */
  after: string | null;
}

/** `{data: [...], paging: {cursors: {after}, next}}`: a next page exists only with `next`. */
function pageOf(data: unknown): TemplatesPage {
  const body = (typeof data === 'object' && data !== null ? data : {}) as {
    data?: unknown;
    paging?: { cursors?: { after?: unknown }; next?: unknown };
  };
  const entries = Array.isArray(body.data) ? body.data : [];
  const after = body.paging?.next ? text(body.paging.cursors?.after) : null;
  return {
    templates: entries.flatMap((entry) => templateFromMeta(entry) ?? []),
    after,
  };
}

/** The Graph API's reads of a number and its business account's templates. */
@Injectable()
export class GraphCloudApiAccount extends CloudApiAccount {
  constructor(private readonly graph: GraphApiClient) {
    super();
  }

  lookUpNumber(target: CloudApiTarget): Promise<CloudApiNumber> {
    return this.graph.call(
      target,
      {
        operation: 'lookup_number',
        method: 'GET',
        path: `/${encodeURIComponent(target.phoneNumberId)}`,
        query: { fields: NUMBER_FIELDS },
        timeoutMs: READ_TIMEOUT_MS,
      },
      numberOf,
    );
  }

  /**
   * Follows Meta's cursors (`after`) rather than its `next` URL, so every page is asked of the
   * configuration's own base URL, checked like any other.
   */
  async listTemplates(target: CloudApiTarget): Promise<ListedTemplate[]> {
    const templates: ListedTemplate[] = [];
    let after: string | null = null;
    for (let page = 0; page < MAX_TEMPLATE_PAGES; page++) {
      const query: Record<string, string> = { limit: String(TEMPLATES_PAGE) };
      if (after) {
        query.after = after;
      }
      const read = await this.graph.call(
        target,
        {
          operation: 'list_templates',
          method: 'GET',
          path: `/${encodeURIComponent(target.businessAccountId)}/message_templates`,
          query,
          timeoutMs: READ_TIMEOUT_MS,
        },
        pageOf,
      );
      templates.push(...read.templates);
      after = read.after;
      if (!after) {
        break;
      }
    }
    return templates;
  }
}
