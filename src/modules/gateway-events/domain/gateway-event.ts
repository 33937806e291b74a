/**
 * The gateway's events as Evolution API v2.3.6 sends them (`sendDataWebhook`): an envelope
 * `{event, instance, data, destination, date_time, sender, server_url, apikey}` with the event
 * name lower-case and dotted. What the service reads of each:
 * - messages.update: `data {keyId, remoteJid, fromMe, status}`; keyId is the key id the send
 *   answered with.
 * - messages.upsert: `data {key {remoteJid, fromMe, id}, message {conversation |
 *   extendedTextMessage {text}}, messageTimestamp}`: a person's reply.
 * - connection.update: `data {instance, state, statusReason}`.
 */
export const TRACKED_EVENTS = ['messages.update', 'messages.upsert', 'connection.update'] as const;
export type TrackedEvent = (typeof TRACKED_EVENTS)[number];

export interface GatewayEventEnvelope {
  event: TrackedEvent;
  instance: string;
  apikey: string | null;
  data: Record<string, unknown>;
  /** When the gateway says it happened; the receipt time otherwise. */
  at: Date;
}

/** The envelope, or null when it is not one the service listens to (acknowledged, ignored). */
export function parseEnvelope(
  body: unknown,
  receivedAt: Date,
): GatewayEventEnvelope | 'invalid' | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return 'invalid';
  }
  const { event, instance, apikey, data, date_time: dateTime } = body as Record<string, unknown>;
  if (typeof event !== 'string' || typeof instance !== 'string') {
    return 'invalid';
  }
  const name = event.toLowerCase().replace(/_/g, '.');
  const tracked = TRACKED_EVENTS.find((known) => known === name);
  if (!tracked) {
    return null;
  }
  const at = typeof dateTime === 'string' ? new Date(dateTime) : receivedAt;
  return {
    event: tracked,
    instance,
    apikey: typeof apikey === 'string' && apikey !== '' ? apikey : null,
    data:
      typeof data === 'object' && data !== null && !Array.isArray(data)
        ? (data as Record<string, unknown>)
        : {},
    at: Number.isNaN(at.getTime()) || at.getTime() > receivedAt.getTime() ? receivedAt : at,
  };
}

const RECEIPT_RANKS: Record<string, number> = {
  ERROR: 0,
  SERVER_ACK: 2,
  DELIVERY_ACK: 3,
  READ: 4,
  PLAYED: 5,
};

/** How far a message got, from a messages.update status (null: nothing to record). */
export function receiptRank(status: unknown): number | null {
  return typeof status === 'string' && status in RECEIPT_RANKS ? RECEIPT_RANKS[status] : null;
}

/** The receipt in a messages.update, or null when it is not about a message we sent. */
export function receiptOf(data: Record<string, unknown>): { keyId: string; rank: number } | null {
  const rank = receiptRank(data.status);
  const keyId = data.keyId;
  if (rank === null || typeof keyId !== 'string' || keyId === '' || data.fromMe === false) {
    return null;
  }
  return { keyId, rank };
}

/** A person's text reply in a messages.upsert, with the phone it came from; null otherwise. */
export function replyOf(data: Record<string, unknown>): { phone: string; text: string } | null {
  const key = (data.key ?? {}) as Record<string, unknown>;
  if (key.fromMe !== false) {
    return null;
  }
  const jid = [key.remoteJid, key.remoteJidAlt, key.senderPn].find(
    (value): value is string => typeof value === 'string' && value.endsWith('@s.whatsapp.net'),
  );
  const message = (data.message ?? {}) as Record<string, unknown>;
  const extended = (message.extendedTextMessage ?? {}) as Record<string, unknown>;
  const text = [message.conversation, extended.text].find(
    (value): value is string => typeof value === 'string',
  );
  if (!jid || text === undefined) {
    return null;
  }
  return { phone: jid.split('@')[0].split(':')[0].replace(/\D/g, ''), text };
}

/** A reply compared with opt-out words: trimmed, without case, accents or closing punctuation. */
export function normalizeReply(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .replace(/[.!]+$/, '')
    .trim()
    .toUpperCase();
}

export function isOptOut(text: string, words: readonly string[]): boolean {
  const reply = normalizeReply(text);
  return reply !== '' && words.some((word) => normalizeReply(word) === reply);
}

/** A connection.update: the state, and the reason (Baileys DisconnectReason, 401 logged out). */
export function connectionOf(
  data: Record<string, unknown>,
): { state: string; reason: number | null } | null {
  const state = data.state;
  if (typeof state !== 'string' || state === '') {
    return null;
  }
  const reason = Number(data.statusReason);
  return { state, reason: Number.isInteger(reason) ? reason : null };
}

/** WhatsApp logged the number out: nothing sends until a person reconnects it. */
export const LOGGED_OUT_STATUS = 401;
