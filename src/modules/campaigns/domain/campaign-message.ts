import type { OutgoingMessage } from '../../gateway/domain/messaging-gateway';
import type { CampaignMediaType, PollDefinition } from './campaign.entity';
import { CampaignType } from './campaign-status';
import { documentFileName, mimeTypeFor } from './media-kind';
import { renderMessage } from './message-template';

export interface CampaignContent {
  type: CampaignType;
  messageContent: string | null;
  mediaUrl: string | null;
  mediaType: CampaignMediaType | null;
  fileName: string | null;
  caption: string | null;
  pollData: PollDefinition | null;
}

/**
 * What one contact receives, in order. A MEDIA campaign sends one media message whose
 * caption is `caption` or the rendered message; audio has no caption, so the rendered
 * message follows it as text (docs/API-RULES.md §4).
 */
export function messagesForContact(
  content: CampaignContent,
  contact: { name: string },
  recordValues: Record<string, string> = {},
): OutgoingMessage[] {
  const text = content.messageContent
    ? renderMessage(content.messageContent, contact, recordValues)
    : '';
  switch (content.type) {
    case 'TEXT':
      return [{ kind: 'text', text }];
    case 'POLL': {
      const poll = content.pollData as PollDefinition;
      return [
        {
          kind: 'poll',
          name: renderMessage(poll.name, contact, recordValues),
          options: poll.options,
          selectableCount: poll.selectableCount,
        },
      ];
    }
    case 'MEDIA':
      return mediaMessages(content, text, contact, recordValues);
  }
}

function mediaMessages(
  content: CampaignContent,
  text: string,
  contact: { name: string },
  recordValues: Record<string, string>,
): OutgoingMessage[] {
  const media = content.mediaUrl as string;
  if (content.mediaType === 'audio') {
    const audio: OutgoingMessage[] = [{ kind: 'audio', audio: media }];
    return text.trim() ? [...audio, { kind: 'text', text }] : audio;
  }
  const caption = content.caption ? renderMessage(content.caption, contact, recordValues) : text;
  const mediaType = content.mediaType ?? 'document';
  const mimeType = mimeTypeFor(media, content.fileName);
  const fileName =
    mediaType === 'document'
      ? documentFileName(media, content.fileName, mimeType)
      : content.fileName;
  return [
    {
      kind: 'media',
      mediaType,
      media,
      mimeType,
      fileName: fileName ?? undefined,
      caption: caption.trim() ? caption : undefined,
    },
  ];
}

/**
 * A message the gateway would refuse as empty ("Text is required") or that says nothing: a
 * text or poll question that rendered blank (a template of variables the contact has no
 * value for). Media always carry their file.
 */
export function isBlankMessage(message: OutgoingMessage | undefined): boolean {
  if (!message) {
    return true;
  }
  switch (message.kind) {
    case 'text':
      return message.text.trim() === '';
    case 'poll':
      return message.name.trim() === '';
    case 'media':
    case 'audio':
      return false;
  }
}
