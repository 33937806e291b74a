/**
 * The approved Cloud API message template a campaign sends, as the company wrote it: its
 * parameters may hold variables ({PrimeiroNome}, a database column), rendered per contact.
 */
export interface CampaignTemplate {
  name: string;
  /** The template's language code, e.g. pt_BR. */
  language: string;
  /** Positional body parameters, in the template's order. */
  bodyParameters: string[];
  /** The header's media, for a template whose header is an image, a video or a document. */
  headerMedia: { mediaType: 'image' | 'video' | 'document'; url: string } | null;
}
