import { GatewayError, GatewayErrorKind } from '../domain/messaging-gateway';

const DETAIL_MAX_CHARS = 200;

/**
 * What each of Meta's error codes proves about a message, from Meta's error-codes page
 * (developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes/).
 * A synchronous error answer of the Graph API carries no message id: Meta did not take the
 * message, so every known code is "not sent", and what varies is who must act:
 * - throttled: Meta's rates, which pass by themselves: 4 (the app's call rate), 80007 (the
 *   business account's rate), 130429 (the number's throughput), 131048 (spam rate: messages
 *   to people who block or report the number; Meta slows the number), 131056 (pair rate: too
 *   many messages to this person now), 131057 (the account is in maintenance, e.g. a
 *   throughput upgrade). Retried later without counting an attempt.
 * - undeliverable: this person cannot get it: 131026 (not on WhatsApp, old app, or has not
 *   accepted the terms), 130472 (the person is in one of Meta's experiments), 131050 (the
 *   person stopped marketing messages from the business).
 * - reengagement_required: 131047, more than 24 h since the person wrote and not a template.
 * - marketing_limit: 131049, Meta keeps the person's share of marketing messages.
 * - account_blocked: nothing sends until someone acts on the account: 0, 3, 10, 190 and
 *   200–299 (the token is expired or lacks a permission), 368 (blocked for a policy
 *   violation), 131005 (access denied), 131031 (the account is locked), 131037 (the display
 *   name is not approved), 131042 (a payment problem), 131045 (certificate), 133010 (the
 *   number is not registered), 132001 (the template does not exist in that language),
 *   132015 / 132016 (the template is paused / disabled for its quality).
 * - rejected: this request's content is wrong and would be refused again: 100 (a parameter),
 *   131008 / 131009 (a missing / invalid parameter), 131021 (sender and recipient are the
 *   same), 131051 (unsupported type), 132000 / 132012 (the template's parameter count /
 *   format), 132005 (translated text too long), 132007 (the template's format policy),
 *   135000 (a generic user error).
 * - media_unreachable: 131052 / 131053, Meta could not download or use the media's link:
 *   every contact would fail the same way.
 * - transient: Meta's own passing failure before it took the message: 1, 2 (service
 *   unavailable), 131016 (a service is temporarily unavailable), 133004 (server unavailable).
 * - uncertain: 131000 "something went wrong": Meta does not say whether it sent; never sent
 *   again, reconciled by the status webhooks.
 */
const KIND_OF_CODE: ReadonlyMap<number, GatewayErrorKind> = new Map([
  ...codes('throttled', [4, 80007, 130429, 131048, 131056, 131057]),
  ...codes('undeliverable', [131026, 130472, 131050]),
  ...codes('reengagement_required', [131047]),
  ...codes('marketing_limit', [131049]),
  ...codes('account_blocked', [0, 3, 10, 190, 368, 131005, 131031, 131037, 131042, 131045]),
  ...codes('account_blocked', [133010, 132001, 132015, 132016]),
  ...codes('rejected', [100, 131008, 131009, 131021, 131051, 132000, 132005, 132007, 132012]),
  ...codes('rejected', [135000]),
  ...codes('media_unreachable', [131052, 131053]),
  ...codes('transient', [1, 2, 131016, 133004]),
  ...codes('uncertain', [131000]),
]);

function codes(kind: GatewayErrorKind, list: number[]): Array<[number, GatewayErrorKind]> {
  return list.map((code) => [code, kind]);
}

/** Graph API object not found (code 100, subcode 33): the phone number id or account is wrong. */
const UNKNOWN_OBJECT_SUBCODE = 33;

/** Meta's `{error: {message, code, error_subcode, error_data: {details}}}`, when it is that. */
export interface GraphErrorBody {
  code: number | null;
  subcode: number | null;
  message: string;
  details: string | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The error envelope of a Graph API answer; null for a body that is not Meta's. */
export function graphErrorOf(body: unknown): GraphErrorBody | null {
  const error = isRecord(body) ? body.error : undefined;
  if (!isRecord(error) || typeof error.code !== 'number') {
    return null;
  }
  const data = isRecord(error.error_data) ? error.error_data : {};
  return {
    code: error.code,
    subcode: typeof error.error_subcode === 'number' ? error.error_subcode : null,
    message: typeof error.message === 'string' ? error.message : '',
    details: typeof data.details === 'string' ? data.details : null,
  };
}

/** Meta's own words (its details say more than its message), one line, cut, with the code. */
function describe(error: GraphErrorBody): string {
  const text = (error.details ?? error.message).replace(/\s+/g, ' ').trim();
  const cut = text.length > DETAIL_MAX_CHARS ? `${text.slice(0, DETAIL_MAX_CHARS)}…` : text;
  return `${cut || 'erro da API do WhatsApp'} (código ${error.code})`;
}

/** The kind Meta's code proves; by the HTTP status for a code this table does not know. */
function kindOf(status: number, error: GraphErrorBody | null): GatewayErrorKind {
  if (error?.code === 100 && error.subcode === UNKNOWN_OBJECT_SUBCODE) {
    return 'unknown_instance';
  }
  const known = error?.code === null || error === null ? undefined : KIND_OF_CODE.get(error.code);
  if (known) {
    return known;
  }
  if (status === 401 || status === 403) {
    return 'bad_credentials';
  }
  if (status === 404) {
    return 'unknown_instance';
  }
  if (status === 429) {
    return 'throttled';
  }
  // Meta's other 4xx errors are its refusal of this request, with no message id: not sent.
  // A 5xx, or an answer that is not Meta's (a proxy), proves nothing: never sent twice.
  return status >= 400 && status < 500 && error ? 'rejected' : 'uncertain';
}

/** A non-2xx answer of the Graph API as the GatewayError its code proves. */
export function cloudApiErrorFromResponse(status: number, body: unknown): GatewayError {
  const error = graphErrorOf(body);
  const kind = kindOf(status, error);
  const message = error
    ? describe(error)
    : `A API do WhatsApp respondeu HTTP ${status} sem o corpo de erro da Meta`;
  return new GatewayError(kind, message, status);
}
