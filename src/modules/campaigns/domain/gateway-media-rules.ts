import { isURL } from 'class-validator';
import { canDrawBlank } from './message-variants';
import type { OutgoingMessage } from '../../../common/messaging/outgoing-message';

/** The largest data-URI media accepted, decoded (WhatsApp's own limit for most media is 16 MB). */
export const MAX_DATA_URI_BYTES = 16 * 1024 * 1024;

/**
 * Whether Evolution API (v2.3.6, sendMessage.controller.ts) takes `value` as a media URL: it
 * checks with class-validator's `isURL` and its default options, which refuse hosts without a
 * dotted alphabetic TLD (localhost, a bare name), `_` in hosts, whitespace, `<>`, and URLs over
 * 2,083 characters. Anything it refuses fails every contact with "Owned media must be a url or
 * base64", so it is refused here, at creation.
 */
export function gatewayAcceptsMediaUrl(value: string): boolean {
  return isURL(value);
}

const DATA_URI = /^data:([\w.+-]+\/[\w.+-]+)((?:;[\w=.+-]+)*);base64,/i;

/**
 * A data URI with its base64 in the form the gateway's `isBase64` check takes: the standard
 * alphabet, no whitespace, padded. Null when the payload is not base64 at all.
 */
export function normalizeDataUri(value: string): { dataUri: string; bytes: number } | null {
  const match = DATA_URI.exec(value);
  if (!match) {
    return null;
  }
  const compact = value
    .slice(match[0].length)
    .replace(/\s+/g, '')
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .replace(/=+$/, '');
  if (compact.length === 0 || compact.length % 4 === 1 || !/^[A-Za-z0-9+/]+$/.test(compact)) {
    return null;
  }
  const padded = compact + '='.repeat((4 - (compact.length % 4)) % 4);
  const bytes = Math.floor((compact.length * 3) / 4);
  return { dataUri: `${match[0]}${padded}`, bytes };
}

/** A short description of a data URI, for responses: the bytes are never echoed back. */
export function describeDataUri(value: string): string {
  const match = DATA_URI.exec(value);
  if (!match) {
    return value;
  }
  const payload = value.length - match[0].length;
  const bytes =
    Math.floor((payload * 3) / 4) - (value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0);
  return `data:${match[1]};base64,… (${bytes} bytes)`;
}

/**
 * Whether a template renders blank for some contact: everything in it is a variable
 * ({PrimeiroNome}, a record column) that a contact may lack, or a group of variants that may
 * draw one (`{Oi|}`, `{Oi|{PrimeiroNome}}`).
 */
export function canRenderBlank(template: string | null | undefined): boolean {
  return !!template && canDrawBlank(template);
}

/** Creation warnings for templates that render blank for a contact without their variables. */
export function blankTemplateWarnings(input: {
  message?: string;
  caption?: string;
  pollData?: { name: string };
}): string[] {
  const fields: Array<[string, string | undefined]> = [
    ['message', input.caption ? undefined : input.message],
    ['caption', input.caption],
    ['pollData.name', input.pollData?.name],
  ];
  return fields
    .filter(([, template]) => canRenderBlank(template))
    .map(
      ([field]) =>
        `${field} só tem variáveis ou variantes vazias: pode ficar em branco para alguns contatos, e esses contatos falham sem envio`,
    );
}

/**
 * The URL a message makes the gateway fetch, as a reason may name it: without its query or
 * credentials (a signed URL carries its signature there). Null when the message holds its bytes.
 */
export function fetchedMediaUrlOf(message: OutgoingMessage): string | null {
  const media =
    message.kind === 'media'
      ? message.media
      : message.kind === 'audio'
        ? message.audio
        : message.kind === 'template'
          ? (message.headerMedia?.link ?? null)
          : null;
  if (!media || !/^https?:\/\//i.test(media)) {
    return null;
  }
  try {
    const url = new URL(media);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return null;
  }
}
