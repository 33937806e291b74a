import type { OutgoingMessage, TemplateMessage } from '../../../common/messaging/outgoing-message';
import type { CampaignTemplate } from './campaign-template';
import type { CampaignContent, PollDefinition } from './campaign.entity';
import { documentFileName, mimeTypeFor } from './media-kind';
import { renderMessage } from './message-template';
import { drawVariants } from './message-variants';

/**
 * The seed of a contact's variants: the same campaign and phone draw the same text, so a
 * send that is tried again, or looked at again, says what was sent.
 */
export function variantSeed(campaignId: number | string, phoneNumber: string): string {
  return `campaign:${campaignId}:${phoneNumber}`;
}

/**
 * What one contact receives, in order. A template campaign (Cloud API) sends its template, its
 * body parameters rendered as messages are. A MEDIA campaign sends one media message whose
 * caption is `caption` or the rendered message; audio has no caption, so the rendered
 * message follows it as text (docs/API-RULES.md §4). The message, the caption and the poll
 * question each draw their variants from `seed` before their variables are filled, so a
 * value with `|` or braces is never read as variants; poll options are sent as written.
 */
export function messagesForContact(
  content: CampaignContent,
  contact: { name: string },
  recordValues: Record<string, string>,
  seed: string,
): OutgoingMessage[] {
  const render = (template: string, field: string): string =>
    renderMessage(drawVariants(template, `${seed}:${field}`), contact, recordValues);
  if (content.template) {
    return [templateMessage(content.template, render)];
  }
  const text = content.messageContent ? render(content.messageContent, 'message') : '';
  switch (content.type) {
    case 'TEXT':
      return [{ kind: 'text', text }];
    case 'POLL': {
      const poll = content.pollData as PollDefinition;
      return [
        {
          kind: 'poll',
          name: render(poll.name, 'poll'),
          options: poll.options,
          selectableCount: poll.selectableCount,
        },
      ];
    }
    case 'MEDIA':
      return mediaMessages(
        content,
        text,
        content.caption ? render(content.caption, 'caption') : null,
      );
  }
}

/**
 * A Cloud API template, each body parameter drawn and filled like a message (its own seed per
 * position, so two parameters draw independently); the header's media is sent as written.
 */
/**
 * Meta refuses a template parameter with a new line, a tab or more than four spaces in a row
 * (its rules for template parameters): a database value with line breaks is sent on one line.
 */
export function asTemplateParameter(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ').replace(/ {5,}/g, '    ');
}

function templateMessage(
  template: CampaignTemplate,
  render: (text: string, field: string) => string,
): TemplateMessage {
  const message: TemplateMessage = {
    kind: 'template',
    name: template.name,
    language: template.language,
    bodyParameters: template.bodyParameters.map((parameter, index) =>
      asTemplateParameter(render(parameter, `template:${index}`)),
    ),
  };
  if (template.headerMedia) {
    const { mediaType, url } = template.headerMedia;
    message.headerMedia = { mediaType, link: url };
  }
  return message;
}

function mediaMessages(
  content: CampaignContent,
  text: string,
  renderedCaption: string | null,
): OutgoingMessage[] {
  const media = content.mediaUrl as string;
  if (content.mediaType === 'audio') {
    const audio: OutgoingMessage[] = [{ kind: 'audio', audio: media }];
    return text.trim() ? [...audio, { kind: 'text', text }] : audio;
  }
  const caption = renderedCaption ?? text;
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
    case 'template':
      // Meta refuses an empty parameter: a variable without a value blanks the whole message.
      return message.bodyParameters.some((parameter) => parameter.trim() === '');
    case 'media':
    case 'audio':
      return false;
  }
}

/**
 * The text a contact was sent, as `sentText` shows it: the first text, caption or poll
 * question among the messages (after a voice note, the text that follows it); null when none
 * carries one.
 */
export function sentTextOf(messages: readonly OutgoingMessage[]): string | null {
  for (const message of messages) {
    switch (message.kind) {
      case 'text':
        return message.text;
      case 'media':
        if (message.caption !== undefined) {
          return message.caption;
        }
        break;
      case 'poll':
        return message.name;
      case 'audio':
      case 'template':
        break;
    }
  }
  return null;
}
