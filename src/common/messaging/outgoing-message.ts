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
  | { kind: 'poll'; name: string; options: string[]; selectableCount: number };
