import type { GatewayOperation } from '../../../common/metrics/metric-labels';
import {
  GatewayError,
  OutgoingMessage,
  SendOptions,
  SentMessage,
} from '../domain/messaging-gateway';

/**
 * The bodies of POST /{version}/{phone-number-id}/messages, as Meta's messages reference
 * documents them (developers.facebook.com/documentation/business-messaging/whatsapp/messages/):
 * `messaging_product: "whatsapp"`, the recipient's number, the type and its object. Media go
 * by link (the Cloud API fetches it); `biz_opaque_callback_data` comes back with every status
 * webhook of the message.
 */
export interface CloudSendRequest {
  operation: GatewayOperation;
  body: Record<string, unknown>;
}

/** Meta's limit on `biz_opaque_callback_data`. */
const CALLBACK_DATA_MAX = 512;

function isLink(media: string): boolean {
  return /^https?:\/\//i.test(media);
}

function mediaLink(media: string): string {
  if (!isLink(media)) {
    // Meta takes media by link or by an id uploaded beforehand; the service sends links.
    throw new GatewayError(
      'rejected',
      'A API oficial do WhatsApp envia mídia só por link (URL http ou https), não em base64',
    );
  }
  return media;
}

type Payload = { operation: GatewayOperation; type: string; object: Record<string, unknown> };

function templateObject(message: Extract<OutgoingMessage, { kind: 'template' }>) {
  const components: Array<Record<string, unknown>> = [];
  if (message.headerMedia) {
    const { mediaType, link } = message.headerMedia;
    components.push({
      type: 'header',
      parameters: [{ type: mediaType, [mediaType]: { link: mediaLink(link) } }],
    });
  }
  if (message.bodyParameters.length > 0) {
    components.push({
      type: 'body',
      parameters: message.bodyParameters.map((text) => ({ type: 'text', text })),
    });
  }
  return {
    name: message.name,
    language: { code: message.language },
    ...(components.length > 0 ? { components } : {}),
  };
}

function payloadOf(message: OutgoingMessage): Payload {
  switch (message.kind) {
    case 'text':
      return {
        operation: 'send_text',
        type: 'text',
        object: { body: message.text, preview_url: false },
      };
    case 'media':
      return {
        operation: 'send_media',
        type: message.mediaType,
        object: {
          link: mediaLink(message.media),
          ...(message.caption ? { caption: message.caption } : {}),
          ...(message.mediaType === 'document' && message.fileName
            ? { filename: message.fileName }
            : {}),
        },
      };
    case 'audio':
      return { operation: 'send_audio', type: 'audio', object: { link: mediaLink(message.audio) } };
    case 'poll':
      throw new GatewayError('rejected', 'A API oficial do WhatsApp não envia enquetes');
    case 'template':
      return { operation: 'send_template', type: 'template', object: templateObject(message) };
  }
}

/** The request for one message to `to` (digits); a message Meta cannot carry is rejected here. */
export function buildCloudSendRequest(
  to: string,
  message: OutgoingMessage,
  options: SendOptions = {},
): CloudSendRequest {
  const { operation, type, object } = payloadOf(message);
  const callback = options.callbackData?.slice(0, CALLBACK_DATA_MAX);
  return {
    operation,
    body: {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type,
      [type]: object,
      ...(callback ? { biz_opaque_callback_data: callback } : {}),
    },
  };
}

/**
 * `{messaging_product, contacts: [{input, wa_id}], messages: [{id}]}`: the message's id
 * (wamid) is what its status webhooks name. A 2xx without one cannot be followed: uncertain,
 * reconciled by the callback data of its first status.
 */
export function toCloudSentMessage(data: unknown): SentMessage {
  const body = (typeof data === 'object' && data !== null ? data : {}) as {
    messages?: Array<{ id?: unknown }>;
    contacts?: Array<{ wa_id?: unknown }>;
  };
  const id = Array.isArray(body.messages) ? body.messages[0]?.id : undefined;
  if (typeof id !== 'string' || id === '') {
    throw new GatewayError('uncertain', 'A API do WhatsApp respondeu sem o id da mensagem (wamid)');
  }
  const waId = Array.isArray(body.contacts) ? body.contacts[0]?.wa_id : undefined;
  return { messageId: id, remoteJid: typeof waId === 'string' ? waId : null };
}
