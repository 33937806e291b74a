import { UnauthorizedError, ValidationFailedError } from '../../../common/errors/domain-error';

/**
 * The gateway's events as Evolution API v2.3.6 sends them (`sendDataWebhook`): an envelope
 * `{event, instance, data, destination, date_time, sender, server_url, apikey}` with the event
 * name lower-case and dotted. What the service reads of each:
 * - messages.update: `data {keyId, remoteJid, fromMe, status}`; keyId is the key id the send
 *   answered with; an ERROR (WhatsApp refused the message) may carry Baileys'
 *   `messageStubParameters: [code]` on gateways newer than v2.3.6.
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
  /** Only what the processor reads of the gateway's `data` (DATA_READERS). */
  data: Record<string, unknown>;
  /** When the gateway says it happened; the receipt time when absent or ahead of it. */
  at: Date;
}

/** The one answer to an event the service does not take: its reason is logged, never shown. */
export function unauthorizedEvent(): UnauthorizedError {
  return new UnauthorizedError('GATEWAY_EVENTS.UNAUTHORIZED', 'Evento não autorizado');
}

export type FieldErrors = Array<[field: string, message: string]>;

/** WhatsApp did not exist before 2009: an older date is no event of it. */
const EARLIEST_EVENT_MS = Date.UTC(2009, 0, 1);
/**
 * Evolution writes its server's local time with a trailing Z (`sendDataWebhook`), so a gateway
 * east of UTC dates its events up to 14 hours ahead; one more hour covers clock drift.
 */
const LATEST_AHEAD_MS = 15 * 3_600_000;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
/** Message ids and JIDs are tens of characters; this bounds what a row and a log may carry. */
const ID_MAX = 128;
/** WhatsApp's own limit on a text message. */
const TEXT_MAX = 65_536;

/**
 * The envelope, or null when it is not an event the service listens to (acknowledged,
 * ignored). Every field the service reads is checked here, before anything is stored: one
 * that cannot be applied is a 400 naming it (docs/ARCHITECTURE.md, "Gateway events").
 */
export function parseEnvelope(body: unknown, receivedAt: Date): GatewayEventEnvelope | null {
  if (!isRecord(body)) {
    throw new ValidationFailedError([['event', 'não é um evento do gateway']]);
  }
  const errors: FieldErrors = [];
  const event = textAt(errors, 'event', body.event, 64, true);
  const instance = textAt(errors, 'instance', body.instance, 100, true);
  const apikey = textAt(errors, 'apikey', body.apikey, 255);
  const at = dateAt(errors, body.date_time, receivedAt);
  const tracked = TRACKED_EVENTS.find((known) => known === event?.toLowerCase().replace(/_/g, '.'));
  let data: Record<string, unknown> = {};
  if (tracked && !isRecord(body.data)) {
    errors.push(['data', 'deve ser um objeto']);
  } else if (tracked) {
    data = DATA_READERS[tracked](errors, body.data as Record<string, unknown>);
  }
  if (errors.length > 0) {
    throw new ValidationFailedError(errors);
  }
  if (!tracked) {
    return null;
  }
  return {
    event: tracked,
    instance: instance as string,
    apikey: apikey || null,
    data,
    at,
  };
}

/**
 * What each tracked event's data must hold where the processor reads it (absent or null:
 * nothing to apply), and the part of it that is kept: only what the processor reads, so a
 * stored event is a few hundred bytes whatever else the gateway (or a sender with the secret)
 * put in `data`.
 */
const DATA_READERS: Record<
  TrackedEvent,
  (errors: FieldErrors, data: Record<string, unknown>) => Record<string, unknown>
> = {
  'messages.update': (errors, data) => {
    textAt(errors, 'data.remoteJid', data.remoteJid, ID_MAX);
    flagAt(errors, 'data.fromMe', data.fromMe);
    statusAt(errors, data.status);
    return {
      keyId: textAt(errors, 'data.keyId', data.keyId, ID_MAX),
      fromMe: data.fromMe,
      status: data.status,
      code: errorCodeAt(errors, data.messageStubParameters),
    };
  },
  'messages.upsert': (errors, data) => {
    const key = objectAt(errors, 'data.key', data.key);
    textAt(errors, 'data.key.id', key.id, ID_MAX);
    flagAt(errors, 'data.key.fromMe', key.fromMe);
    const message = objectAt(errors, 'data.message', data.message);
    const extended = objectAt(
      errors,
      'data.message.extendedTextMessage',
      message.extendedTextMessage,
    );
    return {
      key: {
        fromMe: key.fromMe,
        remoteJid: textAt(errors, 'data.key.remoteJid', key.remoteJid, ID_MAX),
        remoteJidAlt: textAt(errors, 'data.key.remoteJidAlt', key.remoteJidAlt, ID_MAX),
        senderPn: textAt(errors, 'data.key.senderPn', key.senderPn, ID_MAX),
      },
      message: {
        conversation: textAt(errors, 'data.message.conversation', message.conversation, TEXT_MAX),
        extendedTextMessage: {
          text: textAt(errors, 'data.message.extendedTextMessage.text', extended.text, TEXT_MAX),
        },
        caption: captionAt(errors, message),
      },
    };
  },
  'connection.update': (errors, data) => {
    const reason = data.statusReason;
    if (
      !isAbsent(reason) &&
      !(Number.isInteger(reason) && (reason as number) >= 0 && (reason as number) <= 9999)
    ) {
      errors.push(['data.statusReason', 'deve ser um número inteiro entre 0 e 9999']);
    }
    return { state: textAt(errors, 'data.state', data.state, 20), statusReason: reason };
  },
};

/**
 * Evolution v2.3.6 sends ERROR, PENDING, SERVER_ACK, DELIVERY_ACK, READ, PLAYED, or DELETED for
 * an update it cannot map (its Cloud API channel: the upper-cased Meta status, e.g. DELIVERED);
 * any such word is accepted and only the known receipts are applied. Anything else is no status
 * the gateway sends.
 */
const STATUS = /^[A-Z][A-Z_]{0,31}$/;

function statusAt(errors: FieldErrors, value: unknown): void {
  if (!isAbsent(value) && !(typeof value === 'string' && STATUS.test(value))) {
    errors.push(['data.status', 'deve ser um status do gateway, como DELIVERY_ACK ou READ']);
  }
}

/**
 * Baileys reports a nack's code in `messageStubParameters[0]` (463: the reach-out lock); v2.3.6
 * does not forward it, newer gateways may. A code is a few digits or letters.
 */
const ERROR_CODE = /^[A-Za-z0-9_]{1,16}$/;

function errorCodeAt(errors: FieldErrors, value: unknown): string | undefined {
  if (isAbsent(value)) {
    return undefined;
  }
  const first: unknown = Array.isArray(value) ? value[0] : undefined;
  const code = typeof first === 'number' && Number.isInteger(first) ? String(first) : first;
  if (
    !Array.isArray(value) ||
    value.length > 8 ||
    !(isAbsent(code) || (typeof code === 'string' && ERROR_CODE.test(code)))
  ) {
    errors.push(['data.messageStubParameters', 'deve ser uma lista de códigos, como ["463"]']);
    return undefined;
  }
  return typeof code === 'string' ? code : undefined;
}

/** The messages whose caption is their text (Baileys' proto: imageMessage.caption…). */
const CAPTIONED = ['imageMessage', 'videoMessage', 'documentMessage'] as const;

/** A media message's caption, the text a person wrote with it. */
function captionAt(errors: FieldErrors, message: Record<string, unknown>): string | undefined {
  for (const kind of CAPTIONED) {
    const media = objectAt(errors, `data.message.${kind}`, message[kind]);
    const caption = textAt(errors, `data.message.${kind}.caption`, media.caption, TEXT_MAX);
    if (caption !== undefined) {
      return caption;
    }
  }
  return undefined;
}

/** Null counts as absent: Evolution sends null for what a message does not have. */
function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text, or undefined when absent (null counts as absent); a wrong one is recorded. */
export function textAt(
  errors: FieldErrors,
  field: string,
  value: unknown,
  max: number,
  required = false,
): string | undefined {
  if (isAbsent(value) || (required && value === '')) {
    if (required) {
      errors.push([field, 'é obrigatório']);
    }
    return undefined;
  }
  if (typeof value !== 'string' || value.length > max) {
    errors.push([field, `deve ser um texto de até ${max} caracteres`]);
    return undefined;
  }
  return value;
}

function flagAt(errors: FieldErrors, field: string, value: unknown): void {
  if (!isAbsent(value) && typeof value !== 'boolean') {
    errors.push([field, 'deve ser true ou false']);
  }
}

/** The object, or an empty one when absent or wrong (a wrong one is recorded). */
export function objectAt(
  errors: FieldErrors,
  field: string,
  value: unknown,
): Record<string, unknown> {
  if (isAbsent(value)) {
    return {};
  }
  if (!isRecord(value)) {
    errors.push([field, 'deve ser um objeto']);
    return {};
  }
  return value;
}

/** ISO 8601 with a zone, on a day the calendar has (JS would read 30 February as 2 March). */
function isCalendarDateTime(value: string): boolean {
  if (!ISO_DATE_TIME.test(value)) {
    return false;
  }
  const [year, month, day] = value.slice(0, 10).split('-').map(Number);
  return new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
}

/**
 * `date_time`, believed from 2009 up to the receipt time; ahead of it (see LATEST_AHEAD_MS)
 * it reads as the receipt time. Absent: the receipt time.
 */
function dateAt(errors: FieldErrors, value: unknown, receivedAt: Date): Date {
  if (isAbsent(value)) {
    return receivedAt;
  }
  const at = typeof value === 'string' && isCalendarDateTime(value) ? new Date(value) : null;
  const ms = at?.getTime() ?? Number.NaN;
  if (!(ms >= EARLIEST_EVENT_MS && ms <= receivedAt.getTime() + LATEST_AHEAD_MS)) {
    errors.push([
      'date_time',
      'deve ser uma data ISO 8601 com fuso (como 2026-11-24T12:00:00.000Z), de 2009 até a hora atual',
    ]);
    return receivedAt;
  }
  return ms > receivedAt.getTime() ? receivedAt : (at as Date);
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
  // Own keys only: `in` would also find "constructor" and "toString" on the prototype.
  return typeof status === 'string' && Object.hasOwn(RECEIPT_RANKS, status)
    ? RECEIPT_RANKS[status]
    : null;
}

/**
 * The receipt in a messages.update, or null when it is not about a message we sent; `code` is
 * the nack's code an ERROR carries (newer gateways), else null.
 */
export function receiptOf(
  data: Record<string, unknown>,
): { keyId: string; rank: number; code: string | null } | null {
  const rank = receiptRank(data.status);
  const keyId = data.keyId;
  if (rank === null || typeof keyId !== 'string' || keyId === '' || data.fromMe === false) {
    return null;
  }
  return { keyId, rank, code: rank === 0 && typeof data.code === 'string' ? data.code : null };
}

const PHONE_JID = '@s.whatsapp.net';

/**
 * A message a person wrote to the number, from a messages.upsert: the phone it came from
 * (null when the sender is an `@lid` whose phone-number JID the event does not carry: Baileys 7
 * puts it in `key.remoteJidAlt`, older versions in `key.senderPn`) and its text or caption
 * (null for media without one). Null for our own messages, groups and broadcasts.
 */
export function inboundOf(
  data: Record<string, unknown>,
): { phone: string | null; text: string | null } | null {
  const key = (data.key ?? {}) as Record<string, unknown>;
  const remoteJid = key.remoteJid;
  if (key.fromMe !== false || typeof remoteJid !== 'string') {
    return null;
  }
  if (!remoteJid.endsWith(PHONE_JID) && !remoteJid.endsWith('@lid')) {
    return null;
  }
  const jid = [remoteJid, key.remoteJidAlt, key.senderPn].find(
    (value): value is string => typeof value === 'string' && value.endsWith(PHONE_JID),
  );
  const message = (data.message ?? {}) as Record<string, unknown>;
  const extended = (message.extendedTextMessage ?? {}) as Record<string, unknown>;
  const text = [message.conversation, extended.text, message.caption].find(
    (value): value is string => typeof value === 'string',
  );
  return { phone: jid ? phoneOfJid(jid) : null, text: text ?? null };
}

/** The digits of a JID's user part (`5511…:12@s.whatsapp.net`: the device after `:` dropped). */
function phoneOfJid(jid: string): string {
  return jid.split('@')[0].split(':')[0].replace(/\D/g, '');
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
