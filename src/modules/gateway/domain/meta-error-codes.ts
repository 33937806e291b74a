import type { GatewayErrorKind } from './messaging-gateway';

/**
 * What each of Meta's error codes proves about a message, from Meta's error-codes page
 * (developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes/).
 * A synchronous error answer of the Graph API carries no message id: Meta did not take the
 * message, so every known code is "not sent", and what varies is who must act:
 * - throttled: Meta's rates, which pass by themselves: 4 (the app's call rate), 80007 (the
 *   business account's rate), 130429 (the number's throughput), 131056 (pair rate: too many
 *   messages to this person now), 131057 (the account is in maintenance, e.g. a throughput
 *   upgrade). Retried later without counting an attempt.
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
 *   132015 / 132016 (the template is paused / disabled for its quality), 131048 (the spam
 *   rate: too many people blocked or reported the number's messages; sending on would only
 *   lower its quality further, so a person decides when to go on).
 * - rejected: this request's content is wrong and would be refused again: 100 (a parameter),
 *   131008 / 131009 (a missing / invalid parameter), 131021 (sender and recipient are the
 *   same), 131051 (unsupported type), 132000 / 132012 (the template's parameter count /
 *   format), 132005 (translated text too long), 132007 (the template's format policy),
 *   135000 (a generic user error).
 * - media_unreachable: 131052 / 131053, Meta could not download or use the media's link:
 *   every contact would fail the same way.
 * - transient: Meta's own passing failure before it took the message: 2 (service
 *   unavailable), 131016 (a service is temporarily unavailable), 133004 (server unavailable).
 * - uncertain: 131000 "something went wrong" and 1 ("invalid request or possible server
 *   error"): Meta does not say whether it sent; never sent again, reconciled by the status
 *   webhooks.
 */
const KIND_OF_CODE: ReadonlyMap<number, GatewayErrorKind> = new Map([
  ...codes('throttled', [4, 80007, 130429, 131056, 131057]),
  ...codes('undeliverable', [131026, 130472, 131050]),
  ...codes('reengagement_required', [131047]),
  ...codes('marketing_limit', [131049]),
  ...codes('account_blocked', [0, 3, 10, 190, 368, 131005, 131031, 131037, 131042, 131045]),
  ...codes('account_blocked', [133010, 132001, 132015, 132016, 131048]),
  ...codes('rejected', [100, 131008, 131009, 131021, 131051, 132000, 132005, 132007, 132012]),
  ...codes('rejected', [135000]),
  ...codes('media_unreachable', [131052, 131053]),
  ...codes('transient', [2, 131016, 133004]),
  ...codes('uncertain', [1, 131000]),
]);

function codes(kind: GatewayErrorKind, list: number[]): Array<[number, GatewayErrorKind]> {
  return list.map((code) => [code, kind]);
}

/**
 * What Meta's error `code` proves, as a gateway error kind: the same for a synchronous answer
 * and for a `failed` status webhook's errors[0].code. Undefined: a code not in the table.
 */
export function kindOfMetaCode(code: number): GatewayErrorKind | undefined {
  return KIND_OF_CODE.get(code) ?? (isPermissionCode(code) ? 'account_blocked' : undefined);
}

/** 200–299: the token lacks a permission the call needs (Meta's "API permission" codes). */
function isPermissionCode(code: number): boolean {
  return code >= 200 && code <= 299;
}
