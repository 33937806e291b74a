import type { ListedTemplate } from '../../domain/gateway-template';
import type { CloudApiTarget } from '../../domain/messaging-gateway';

/** What Meta says of a Cloud API number (GET /{phone-number-id}). */
export interface CloudApiNumber {
  displayPhoneNumber: string | null;
  verifiedName: string | null;
  /** GREEN, YELLOW, RED or UNKNOWN. */
  qualityRating: string | null;
  /** e.g. TIER_1K, TIER_UNLIMITED. */
  messagingLimitTier: string | null;
}

/**
 * The Graph API's reads about a Cloud API number and its business account: what the
 * configurations and templates check and list. Failures are GatewayErrors, classified like a
 * send's (a refused token is account_blocked, an unknown number rejected, …).
 */
export abstract class CloudApiAccount {
  abstract lookUpNumber(target: CloudApiTarget): Promise<CloudApiNumber>;
  /** Every template of the business account, Meta's pages followed. */
  abstract listTemplates(target: CloudApiTarget): Promise<ListedTemplate[]>;
}
