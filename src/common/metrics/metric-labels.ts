import type { IncomingMessage } from 'node:http';

/**
 * The label values of the service's metrics (docs/OPERATIONS.md, "Metrics"). Every label takes
 * its values from a closed set written here or in the code: never a company, campaign or record
 * id, a phone number, a URL or a path as the client wrote it, so that the number of series
 * stays bounded whatever the traffic.
 */

/** The `route` of a request that matched no route: unknown paths, and answers given before routing. */
export const UNMATCHED_ROUTE = 'unmatched';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The request's method, or OTHER for the rarer ones Node's parser also accepts (PROPFIND…). */
export function methodLabel(method: string | undefined): string {
  return method !== undefined && KNOWN_METHODS.has(method) ? method : 'OTHER';
}

interface RoutedRequest extends IncomingMessage {
  /** Set by Express's router on the request once one of its routes matched. */
  route?: { path?: unknown };
}

/**
 * The template of the route Express matched (`/api/campaigns/:id`), never the path the client
 * sent; UNMATCHED_ROUTE when no route matched (a 404 for an unknown path, the static files of
 * /api/docs, a request the HTTP pipeline answered before routing: 429, 413…). Every route is
 * declared by a controller, so the set of templates is the set of routes.
 */
export function routeLabel(request: IncomingMessage): string {
  const path = (request as RoutedRequest).route?.path;
  return typeof path === 'string' && path.length > 0 ? path : UNMATCHED_ROUTE;
}

/**
 * Why an event posted to /api/gateway-events was refused: no or a wrong secret, or a
 * configuration that does not exist or does not track (secret); too many such failures from
 * one address (rate_limited); a field that cannot be applied (invalid); the right secret with
 * another instance (instance) or an apikey that is neither the configuration's key nor the
 * instance's token (apikey).
 */
/**
 * `signature`: a Meta webhook whose X-Hub-Signature-256 did not match; `unrouted`: a Meta
 * change for a phone number id none of the company's configurations has (dropped).
 */
export type GatewayEventRefusal =
  'secret' | 'rate_limited' | 'invalid' | 'instance' | 'apikey' | 'signature' | 'unrouted';

/** What one gateway call was for. */
export type GatewayOperation =
  | 'send_text'
  | 'send_media'
  | 'send_audio'
  | 'send_poll'
  | 'send_template'
  | 'lookup_number'
  | 'list_templates'
  | 'find_messages'
  | 'find_webhook'
  | 'set_webhook'
  | 'connection_state'
  | 'fetch_instances'
  | 'find_contacts'
  | 'find_chats'
  | 'fetch_groups';

/**
 * What a gateway call's answer proves (docs/ARCHITECTURE.md, "Gateway outcomes"):
 * - sent: a send answered 2xx with the message's key; ok: any other call answered 2xx;
 * - not_sent: proven not sent, worth another attempt (refused connection, 429, the gateway's own 5xx);
 * - disconnected: the instance is not connected;
 * - refused: the number is not on WhatsApp, or the gateway's validation refused the request;
 * - instance_refused: the API key or the instance name was refused (401/403/404);
 * - target_refused: the gateway's address is one this service never calls;
 * - uncertain: the message may have gone out (a timeout or lost answer, a proxy's 5xx, a 2xx without a key);
 * - error: anything else (a fault of ours).
 */
export type GatewayOutcome =
  | 'sent'
  | 'ok'
  | 'not_sent'
  | 'disconnected'
  | 'refused'
  | 'instance_refused'
  | 'target_refused'
  | 'uncertain'
  | 'error';

/**
 * Campaign contacts (automation runs included) that reached an outcome, counted when the
 * contact's row moved: SENT and FAILED are final; UNCERTAIN is counted when a contact enters
 * it, and counted again as sent or failed when reconciliation settles it.
 */
export type MessageOutcome = 'sent' | 'failed' | 'uncertain';

/**
 * Why, in classes:
 * - sent: gateway (its answer carried the key), reconciled (found later in the gateway's store);
 * - failed: refused_number, rejected (the gateway's validation), retries_exhausted (3 attempts
 *   that proved nothing went out), blocked (blocked after creation), blank_message (variables
 *   without values), unknown_outcome (never found by reconciliation), not_delivered (WhatsApp
 *   refused it after the gateway accepted it: an ERROR receipt; the message counted sent before),
 *   undeliverable, reengagement_required, marketing_limit (Meta's answers on the Cloud API),
 *   outside_window (a free-form Cloud API message to a person silent for 24 h: no call made);
 * - uncertain: gateway (an answer that proves nothing), unexpected_error (thrown during the
 *   send), interrupted (a worker stopped between marking the contact and its answer).
 */
export type MessageReason =
  | 'gateway'
  | 'reconciled'
  | 'refused_number'
  | 'rejected'
  | 'retries_exhausted'
  | 'blocked'
  | 'blank_message'
  | 'unknown_outcome'
  | 'not_delivered'
  | 'undeliverable'
  | 'reengagement_required'
  | 'marketing_limit'
  | 'outside_window'
  | 'unexpected_error'
  | 'interrupted';

/** How a webhook attempt ended: 2xx, another try later, or given up (schedule used up, or held for 24 h). */
export type WebhookDeliveryOutcome = 'delivered' | 'retry' | 'failed';

/** Where imported rows came from: a CSV/XLSX upload, a push import (sync or async), a gateway sync. */
export type ImportKind = 'file' | 'push' | 'push_async' | 'gateway_sync';

/** The gateway's event kinds the service stores (gateway-events module, TRACKED_EVENTS). */
export type GatewayEventKind =
  | 'messages.update'
  | 'messages.upsert'
  | 'connection.update'
  | 'template.status'
  | 'number.quality';

/** The work queues whose depth is read at scrape time. */
export type WorkQueue = 'campaigns' | 'import_jobs' | 'webhook_deliveries' | 'notices';

/** What locked an instance for reaching out (the gateway module's ReachOutCause). */
export type ReachOutLockCause = 'NACK_463' | 'REFUSALS' | 'WARM_REFUSED';
