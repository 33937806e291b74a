import { ValidationFailedError } from '../../../common/errors/domain-error';
import { FieldErrors, isRecord, objectAt, textAt, type TrackedEvent } from './gateway-event';

/**
 * Meta's webhooks (WhatsApp Cloud API) translated into the rows the processor already applies.
 * The body is `{object: "whatsapp_business_account", entry: [{id: <WABA id>, time?, changes:
 * [{field, value}]}]}` (developers.facebook.com/documentation/business-messaging/whatsapp/
 * webhooks/reference/messages). What is read of each change:
 * - `messages`, `value.statuses[]` {id (wamid), status sent|delivered|read|failed, timestamp,
 *   recipient_id, biz_opaque_callback_data, errors[{code, title}], pricing {billable, category}}
 *   (…/webhooks/reference/messages/status): a messages.update receipt, as Evolution's: sent is
 *   the server's ack, failed the ERROR receipt with Meta's code and title.
 * - `messages`, `value.messages[]` {from, id, timestamp, type, text|button|interactive|caption}:
 *   a messages.upsert, as a person's message through Evolution.
 * - `message_template_status_update` {event, message_template_name, message_template_language,
 *   reason} (…/webhooks/reference/message_template_status_update): a template.status row.
 * - `phone_number_quality_update` {display_phone_number, event, current_limit}
 *   (…/webhooks/reference/phone_number_quality_update): a number.quality row.
 * `value.metadata.phone_number_id` names the number a messages change is for.
 */
export const CLOUD_ACCOUNT_EVENTS = ['template.status', 'number.quality'] as const;
export type CloudAccountEvent = (typeof CLOUD_ACCOUNT_EVENTS)[number];

/** A change of Meta's body as a row to store, and which configuration it is for. */
export interface MetaChange {
  event: TrackedEvent | CloudAccountEvent;
  /** messages: the phone number id; account changes: null (the route's company decides). */
  phoneNumberId: string | null;
  data: Record<string, unknown>;
  at: Date;
}

/** Meta's statuses and the receipts they are (gateway-event.ts RECEIPT_RANKS). */
const RECEIPT_OF_STATUS: Record<string, string> = {
  sent: 'SERVER_ACK',
  delivered: 'DELIVERY_ACK',
  read: 'READ',
  failed: 'ERROR',
};
const ID_MAX = 128;
const TEXT_MAX = 65_536;
const EARLIEST_EVENT_MS = Date.UTC(2009, 0, 1);
/** Meta's clock may run a little ahead of ours. */
const LATEST_AHEAD_MS = 3_600_000;
/** A campaign contact's id, as the service sets biz_opaque_callback_data. */
const CONTACT_ID = /^[1-9]\d{0,18}$/;

/**
 * The rows Meta's body stands for, in its order; a field the service reads that is not what
 * Meta documents is a 400 naming it, nothing stored. Unknown fields and objects are ignored.
 */
export function parseMetaWebhook(body: unknown, receivedAt: Date): MetaChange[] {
  const errors: FieldErrors = [];
  if (!isRecord(body) || !Array.isArray(body.entry)) {
    throw new ValidationFailedError([['entry', 'deve ser a lista de entradas do webhook da Meta']]);
  }
  if (body.object !== 'whatsapp_business_account') {
    return [];
  }
  const changes: MetaChange[] = [];
  body.entry.forEach((entry: unknown, i) => {
    const at = 'entry';
    const record = objectAt(errors, `${at}[${i}]`, entry);
    const entryTime = timeAt(errors, `${at}[${i}].time`, record.time, receivedAt);
    const account = textAt(errors, `${at}[${i}].id`, record.id, 64) ?? null;
    listAt(errors, `${at}[${i}].changes`, record.changes).forEach((change, j) => {
      const field = `${at}[${i}].changes[${j}]`;
      const rows = changeRows(errors, field, objectAt(errors, field, change), entryTime);
      changes.push(...rows.map((row) => accountOf(row, account)));
    });
  });
  if (errors.length > 0) {
    throw new ValidationFailedError(errors.slice(0, 10));
  }
  return changes;
}

/** An account change names its business account (entry.id): the company's configurations on it. */
function accountOf(row: MetaChange, businessAccountId: string | null): MetaChange {
  return row.phoneNumberId === null ? { ...row, data: { ...row.data, businessAccountId } } : row;
}

function changeRows(
  errors: FieldErrors,
  field: string,
  change: Record<string, unknown>,
  entryTime: Date,
): MetaChange[] {
  const value = objectAt(errors, `${field}.value`, change.value);
  switch (change.field) {
    case 'messages':
      return messageRows(errors, `${field}.value`, value, entryTime);
    case 'message_template_status_update':
      return [templateRow(errors, `${field}.value`, value, entryTime)];
    case 'phone_number_quality_update':
      return [qualityRow(errors, `${field}.value`, value, entryTime)];
    default:
      return [];
  }
}

function messageRows(
  errors: FieldErrors,
  field: string,
  value: Record<string, unknown>,
  entryTime: Date,
): MetaChange[] {
  const metadata = objectAt(errors, `${field}.metadata`, value.metadata);
  const phoneNumberId = textAt(
    errors,
    `${field}.metadata.phone_number_id`,
    metadata.phone_number_id,
    64,
    true,
  );
  const statuses = listAt(errors, `${field}.statuses`, value.statuses).map((status, i) =>
    statusRow(
      errors,
      `${field}.statuses[${i}]`,
      objectAt(errors, `${field}.statuses[${i}]`, status),
      entryTime,
    ),
  );
  const messages = listAt(errors, `${field}.messages`, value.messages).map((message, i) =>
    inboundRow(
      errors,
      `${field}.messages[${i}]`,
      objectAt(errors, `${field}.messages[${i}]`, message),
      entryTime,
    ),
  );
  return [...statuses, ...messages]
    .filter((row): row is Omit<MetaChange, 'phoneNumberId'> => row !== null)
    .map((row) => ({ ...row, phoneNumberId: phoneNumberId ?? '' }));
}

/** A status as the receipt Evolution would send; one Meta adds later (e.g. deleted) is none. */
function statusRow(
  errors: FieldErrors,
  field: string,
  status: Record<string, unknown>,
  entryTime: Date,
): Omit<MetaChange, 'phoneNumberId'> | null {
  const keyId = textAt(errors, `${field}.id`, status.id, ID_MAX, true);
  const state = textAt(errors, `${field}.status`, status.status, 32, true);
  const at = timeAt(errors, `${field}.timestamp`, status.timestamp, entryTime);
  const callback = textAt(
    errors,
    `${field}.biz_opaque_callback_data`,
    status.biz_opaque_callback_data,
    512,
  );
  const error = objectAt(
    errors,
    `${field}.errors[0]`,
    listAt(errors, `${field}.errors`, status.errors)[0],
  );
  const code = codeAt(errors, `${field}.errors[0].code`, error.code);
  const pricing = objectAt(errors, `${field}.pricing`, status.pricing);
  const receipt = state ? RECEIPT_OF_STATUS[state] : undefined;
  if (!keyId || !receipt) {
    return null;
  }
  return {
    event: 'messages.update',
    at,
    data: {
      keyId,
      fromMe: true,
      status: receipt,
      code,
      title: textAt(errors, `${field}.errors[0].title`, error.title, 200),
      contactId: callback && CONTACT_ID.test(callback) ? callback : undefined,
      billable: typeof pricing.billable === 'boolean' ? pricing.billable : undefined,
      category: textAt(errors, `${field}.pricing.category`, pricing.category, 40),
      cloud: true,
    },
  };
}

/** Meta's error code: a number (a string of digits is taken too). */
function codeAt(errors: FieldErrors, field: string, value: unknown): string | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  if (typeof value === 'number' && Number.isInteger(value)) {
    return String(value);
  }
  if (typeof value === 'string' && /^\d{1,16}$/.test(value)) {
    return value;
  }
  errors.push([field, 'deve ser o código numérico da Meta']);
  return undefined;
}

/** A person's message, as Evolution's messages.upsert of a phone JID. */
function inboundRow(
  errors: FieldErrors,
  field: string,
  message: Record<string, unknown>,
  entryTime: Date,
): Omit<MetaChange, 'phoneNumberId'> | null {
  const from = textAt(errors, `${field}.from`, message.from, 20, true);
  textAt(errors, `${field}.id`, message.id, ID_MAX);
  const at = timeAt(errors, `${field}.timestamp`, message.timestamp, entryTime);
  const text = inboundText(errors, field, message);
  const digits = from?.replace(/\D/g, '') ?? '';
  if (digits === '') {
    return null;
  }
  return {
    event: 'messages.upsert',
    at,
    data: {
      key: { fromMe: false, remoteJid: `${digits}@s.whatsapp.net` },
      message: { conversation: text },
    },
  };
}

/** The words a person wrote or tapped (…/webhooks/reference/messages: text, button, interactive, media). */
function inboundText(
  errors: FieldErrors,
  field: string,
  message: Record<string, unknown>,
): string | undefined {
  const type = typeof message.type === 'string' ? message.type : '';
  const part = objectAt(errors, `${field}.${type || 'text'}`, message[type || 'text']);
  switch (type) {
    case 'text':
      return textAt(errors, `${field}.text.body`, part.body, TEXT_MAX);
    case 'button':
      return textAt(errors, `${field}.button.text`, part.text, TEXT_MAX);
    case 'interactive': {
      const reply = objectAt(errors, `${field}.interactive`, part.button_reply ?? part.list_reply);
      return textAt(errors, `${field}.interactive.title`, reply.title, TEXT_MAX);
    }
    case 'image':
    case 'video':
    case 'document':
      return textAt(errors, `${field}.${type}.caption`, part.caption, TEXT_MAX);
    default:
      return undefined;
  }
}

function templateRow(
  errors: FieldErrors,
  field: string,
  value: Record<string, unknown>,
  entryTime: Date,
): MetaChange {
  return {
    event: 'template.status',
    phoneNumberId: null,
    at: entryTime,
    data: {
      status: textAt(errors, `${field}.event`, value.event, 40, true),
      name: textAt(
        errors,
        `${field}.message_template_name`,
        value.message_template_name,
        512,
        true,
      ),
      language: textAt(
        errors,
        `${field}.message_template_language`,
        value.message_template_language,
        15,
        true,
      ),
      reason: textAt(errors, `${field}.reason`, value.reason, 200),
    },
  };
}

function qualityRow(
  errors: FieldErrors,
  field: string,
  value: Record<string, unknown>,
  entryTime: Date,
): MetaChange {
  const display = textAt(
    errors,
    `${field}.display_phone_number`,
    value.display_phone_number,
    32,
    true,
  );
  return {
    event: 'number.quality',
    phoneNumberId: null,
    at: entryTime,
    data: {
      displayPhoneNumber: display?.replace(/\D/g, ''),
      event: textAt(errors, `${field}.event`, value.event, 40, true),
      currentLimit: textAt(errors, `${field}.current_limit`, value.current_limit, 30),
    },
  };
}

function listAt(errors: FieldErrors, field: string, value: unknown): unknown[] {
  if (value === undefined || value === null) {
    return [];
  }
  if (!Array.isArray(value)) {
    errors.push([field, 'deve ser uma lista']);
    return [];
  }
  return value;
}

/**
 * Meta's times are Unix seconds (a string in statuses and messages, a number in `entry.time`);
 * believed from 2009 to a little ahead of the receipt time (then the receipt time).
 */
function timeAt(errors: FieldErrors, field: string, value: unknown, fallback: Date): Date {
  if (value === undefined || value === null) {
    return fallback;
  }
  const seconds = typeof value === 'string' && /^\d{1,12}$/.test(value) ? Number(value) : value;
  const ms = typeof seconds === 'number' && Number.isInteger(seconds) ? seconds * 1000 : Number.NaN;
  if (!(ms >= EARLIEST_EVENT_MS && ms <= Date.now() + LATEST_AHEAD_MS)) {
    errors.push([field, 'deve ser um horário Unix em segundos, de 2009 até a hora atual']);
    return fallback;
  }
  return new Date(Math.min(ms, Date.now()));
}
