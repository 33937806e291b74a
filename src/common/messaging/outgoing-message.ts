/**
 * One WhatsApp message as the service sends it, whatever sends it (a campaign, an automation
 * run, a notice) and whatever gateway carries it: the shared language of the campaigns domain,
 * which composes messages, and the gateway module, which sends them.
 */
export type OutgoingMessage =
  | { kind: 'text'; text: string }
  | {
      kind: 'media';
      mediaType: 'image' | 'video' | 'document';
      /** An http(s) URL, or base64 (a data: URI is accepted and stripped to raw base64). */
      media: string;
      mimeType?: string;
      fileName?: string;
      caption?: string;
    }
  | { kind: 'audio'; audio: string }
  | { kind: 'poll'; name: string; options: string[]; selectableCount: number }
  | TemplateMessage;

/**
 * An approved message template of the WhatsApp Cloud API, its parameters rendered for one
 * contact: the only message the official API lets a business start a conversation with.
 */
export interface TemplateMessage {
  kind: 'template';
  name: string;
  /** The template's language code, e.g. pt_BR. */
  language: string;
  /** Positional body parameters ({{1}}, {{2}}, …), already rendered. */
  bodyParameters: string[];
  /** The header's media, for a template whose header is an image, a video or a document. */
  headerMedia?: { mediaType: 'image' | 'video' | 'document'; link: string };
}
