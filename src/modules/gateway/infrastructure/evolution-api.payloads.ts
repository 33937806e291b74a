import {
  GatewayChat,
  GatewayContact,
  GatewayError,
  GatewayGroup,
  InstanceConnectionState,
  InstanceWebhook,
  OutgoingMessage,
  SendOptions,
  SentMessage,
  StoredSentMessage,
} from '../domain/messaging-gateway';

export type SendEndpoint = 'sendText' | 'sendMedia' | 'sendWhatsAppAudio' | 'sendPoll';

export interface SendRequest {
  endpoint: SendEndpoint;
  body: Record<string, unknown>;
}

const DATA_URI = /^data:([^,;]*)((?:;[^,;]*)*?);base64,/i;

/**
 * The gateway takes media as a URL or as raw base64 and refuses a data: URI, so its prefix
 * goes; the media type it named is kept as a mimetype for when the caller gave none.
 */
export function stripDataUri(media: string): { media: string; mimeType?: string } {
  const match = DATA_URI.exec(media);
  if (!match) {
    return { media };
  }
  return { media: media.slice(match[0].length), mimeType: match[1] || undefined };
}

function withDelay(body: Record<string, unknown>, options: SendOptions): Record<string, unknown> {
  return options.delayMs && options.delayMs > 0
    ? { ...body, delay: Math.round(options.delayMs) }
    : body;
}

/** The v2 endpoint and body (EVOLUTION_API.md 3.1–3.4) for one message to `to`. */
export function buildSendRequest(
  to: string,
  message: OutgoingMessage,
  options: SendOptions = {},
): SendRequest {
  switch (message.kind) {
    case 'text':
      return { endpoint: 'sendText', body: withDelay({ number: to, text: message.text }, options) };
    case 'media': {
      const { media, mimeType } = stripDataUri(message.media);
      const body: Record<string, unknown> = { number: to, mediatype: message.mediaType, media };
      const mimetype = message.mimeType ?? mimeType;
      if (mimetype) {
        body.mimetype = mimetype;
      }
      if (message.fileName) {
        body.fileName = message.fileName;
      }
      if (message.caption) {
        body.caption = message.caption;
      }
      return { endpoint: 'sendMedia', body: withDelay(body, options) };
    }
    case 'audio':
      return {
        endpoint: 'sendWhatsAppAudio',
        body: withDelay({ number: to, audio: stripDataUri(message.audio).media }, options),
      };
    case 'poll':
      return {
        endpoint: 'sendPoll',
        body: withDelay(
          {
            number: to,
            name: message.name,
            selectableCount: message.selectableCount,
            values: message.options,
          },
          options,
        ),
      };
    case 'template':
      // Templates are the Cloud API's; creation keeps them off Evolution configurations.
      throw new GatewayError('rejected', 'O Evolution API não envia modelos da API oficial');
  }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function toSentMessage(body: unknown): SentMessage {
  const key = record(record(body).key);
  return { messageId: text(key.id), remoteJid: text(key.remoteJid) };
}

/**
 * Records of `POST /chat/findMessages`: `{messages: {total, pages, currentPage, records}}`,
 * each with `key {id, remoteJid, fromMe}` and `messageTimestamp` in Unix seconds.
 */
export function toStoredSentMessages(body: unknown): StoredSentMessage[] {
  const records = record(record(body).messages).records;
  if (!Array.isArray(records)) {
    throw new GatewayError('rejected', 'Resposta inesperada do gateway ao buscar mensagens');
  }
  return records.map(record).flatMap((row) => {
    const key = record(row.key);
    const messageId = text(key.id);
    const remoteJid = text(key.remoteJid);
    const seconds = Number(row.messageTimestamp);
    return messageId && remoteJid && key.fromMe === true && Number.isFinite(seconds)
      ? [{ messageId, remoteJid, sentAt: new Date(seconds * 1000) }]
      : [];
  });
}

/**
 * `GET /webhook/find`: the gateway's stored row `{id, url, headers, enabled, events,
 * webhookByEvents, webhookBase64, createdAt, updatedAt, instanceId}` (Evolution API v2.3.6,
 * recorded), of which `enabled` and `url` tell where the instance's events go. `null` means no
 * webhook was ever set (or the instance is not loaded): nothing receives its events. A disabled
 * row (stored with `events: []`) sends nothing either. Any other body is not the gateway's
 * answer (a proxy's page, an empty object): reading it as "no webhook" would let registration
 * replace another system's webhook unseen, so it is refused.
 */
export function toInstanceWebhook(body: unknown): InstanceWebhook | null {
  if (body === null) {
    return null;
  }
  const row = record(body);
  if (typeof row.enabled !== 'boolean' || typeof row.url !== 'string') {
    throw new GatewayError(
      'rejected',
      'Resposta inesperada do gateway ao ler o webhook da instância',
    );
  }
  return { enabled: row.enabled, url: text(row.url) };
}

const KNOWN_STATES: readonly InstanceConnectionState[] = ['open', 'connecting', 'close'];

/** `state` is missing while the instance is in the gateway's DB but not loaded in memory. */
export function toConnectionState(body: unknown): InstanceConnectionState {
  const state = record(record(body).instance).state;
  return KNOWN_STATES.find((known) => known === state) ?? 'unknown';
}

/**
 * `fetchInstances?instanceName=` answers the gateway's instance rows (Prisma `Instance`, every
 * column: `name`, `token`, …) in an array, with the global key or the instance's own token.
 */
export function toInstanceToken(body: unknown, instance: string): string | null {
  const row = Array.isArray(body)
    ? body.map(record).find((candidate) => candidate.name === instance)
    : undefined;
  return text(row?.token);
}

function rowsOf(body: unknown, what: string): Record<string, unknown>[] {
  if (!Array.isArray(body)) {
    throw new GatewayError('rejected', `Resposta inesperada do gateway ao listar ${what}`);
  }
  return body.map(record);
}

export function toContacts(body: unknown): GatewayContact[] {
  return rowsOf(body, 'contatos').flatMap((row) => {
    const remoteJid = text(row.remoteJid);
    return remoteJid
      ? [
          {
            remoteJid,
            pushName: text(row.pushName),
            isGroup: row.isGroup === true || remoteJid.endsWith('@g.us'),
            isSaved: row.isSaved === true,
          },
        ]
      : [];
  });
}

export function toChats(body: unknown): GatewayChat[] {
  return rowsOf(body, 'conversas').flatMap((row) => {
    const remoteJid = text(row.remoteJid);
    return remoteJid
      ? [{ remoteJid, pushName: text(row.pushName), isSaved: row.isSaved === true }]
      : [];
  });
}

export function toGroups(body: unknown): GatewayGroup[] {
  return rowsOf(body, 'grupos').flatMap((row) => {
    const id = text(row.id);
    if (!id) {
      return [];
    }
    const participants = Array.isArray(row.participants) ? row.participants.map(record) : [];
    return [
      {
        id,
        subject: text(row.subject),
        participants: participants.flatMap((p) => {
          const participantId = text(p.id);
          return participantId ? [{ id: participantId, phoneNumber: text(p.phoneNumber) }] : [];
        }),
      },
    ];
  });
}
