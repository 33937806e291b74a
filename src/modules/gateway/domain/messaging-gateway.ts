import type { OutgoingMessage } from '../../../common/messaging/outgoing-message';
import type { GatewayOutcome } from '../../../common/metrics/metric-labels';

/** The two kinds of gateway a configuration may name (`gateway_configs.provider`). */
export const GATEWAY_PROVIDERS = ['EVOLUTION', 'CLOUD_API'] as const;
export type GatewayProvider = (typeof GATEWAY_PROVIDERS)[number];

/** Where and how to reach one Evolution API v2 instance (the provider when none is named). */
export interface EvolutionTarget {
  provider?: 'EVOLUTION';
  /** Base URL of the gateway, e.g. https://gw.example.com */
  url: string;
  apiKey: string;
  /** Instance name (not id). */
  instance: string;
}

/** Where and how to reach one number of Meta's WhatsApp Cloud API (the Graph API). */
export interface CloudApiTarget {
  provider: 'CLOUD_API';
  /** The Graph API's base URL, e.g. https://graph.facebook.com */
  url: string;
  /** e.g. v23.0 */
  apiVersion: string;
  phoneNumberId: string;
  businessAccountId: string;
  accessToken: string;
}

export type GatewayTarget = EvolutionTarget | CloudApiTarget;

export type { OutgoingMessage };

export interface SendOptions {
  /**
   * Milliseconds the gateway shows "typing…"/"recording…" before sending (Evolution `delay`).
   * Realism only: it holds the HTTP request open and does not space out messages.
   */
  delayMs?: number;
  /**
   * Echoed back with the message's status events (Cloud API `biz_opaque_callback_data`): the
   * campaign contact's id, so a send whose answer was lost is reconciled by its first status.
   */
  callbackData?: string;
}

export interface SentMessage {
  /** key.id from the gateway: correlates with its delivery webhooks. */
  messageId: string | null;
  remoteJid: string | null;
}

/** A message the gateway stored as sent by the instance (its message store). */
export interface StoredSentMessage {
  messageId: string;
  remoteJid: string;
  /** When WhatsApp took it, to the second. */
  sentAt: Date;
}

/** The instance's one webhook, as the gateway keeps it. */
export interface InstanceWebhook {
  enabled: boolean;
  url: string | null;
}

export interface InstanceWebhookSettings {
  enabled: boolean;
  url: string;
  /** Sent by the gateway with every event. */
  headers: Record<string, string>;
  /** Upper-snake event names, e.g. MESSAGES_UPDATE. */
  events: string[];
}

export type InstanceConnectionState = 'open' | 'connecting' | 'close' | 'unknown';

/**
 * How a gateway call failed, by what it proves about the message (Evolution API v2.3.6,
 * `sendMessageWithTyping` and the send controller), which decides what the caller does next:
 * - refused_number: the recipient is not on WhatsApp (400 with exists:false). Not sent; fail
 *   the contact, no retry.
 * - rejected: the gateway's request validation refused the request (its JSON schema, the
 *   media, text and file-name checks of the send controller). Not sent, and sending it again
 *   would be refused again: fail the contact.
 * - bad_credentials: 401/403 — the API key is refused. Not sent.
 * - unknown_instance: 404 on an instance route — the instance name does not exist. Not sent.
 * - disconnected: the instance is not connected ("Connection Closed" in any status, state not
 *   open), or the gateway cannot send at all until someone acts (503 LICENSE_REQUIRED of a 2.4
 *   server). Not sent: wait for the instance.
 * - transient: proven not sent, worth another attempt: connection refused, DNS or TLS failure
 *   before the request was written, 429, the gateway's own 5xx answers (raised before the
 *   message reaches WhatsApp).
 * - uncertain: the message may have gone out: a timeout or lost connection after the request
 *   was written, 502/504 or a 5xx without the gateway's error body (a proxy in front of it), a
 *   2xx without a message key, and any other 400 (the gateway turns errors raised after the
 *   send into 400). Never send again: reconcile with the gateway's message store.
 * - target_refused: the URL resolves to an address we never call. Not sent.
 * - media_unreachable: the gateway could not fetch the message's media URL (DNS failure,
 *   refused connection), which it does before anything else. Not sent, and every contact
 *   would fail the same way: hold the campaign with the URL named, fail no one.
 * The Cloud API's answers add (Meta's error codes, docs/SENDING.md):
 * - throttled: the number or the pair with this person is over Meta's rate (130429, 131056).
 *   Not sent: try again later without counting an attempt, and slow down.
 * - undeliverable: Meta could not deliver to this person (131026). Fail the contact.
 * - reengagement_required: more than 24 h since the person last wrote, and the message is not
 *   a template (131047). Fail the contact.
 * - marketing_limit: the person has had their share of marketing messages (131049). Fail the
 *   contact.
 * - account_blocked: the account, its payment, its token or the template cannot send until
 *   someone acts (190, 131042, 131031, a paused or disabled template). Not sent: pause the
 *   campaign with the reason, fail no one.
 */
export type GatewayErrorKind =
  | 'refused_number'
  | 'rejected'
  | 'bad_credentials'
  | 'unknown_instance'
  | 'disconnected'
  | 'transient'
  | 'uncertain'
  | 'target_refused'
  | 'media_unreachable'
  | 'throttled'
  | 'undeliverable'
  | 'reengagement_required'
  | 'marketing_limit'
  | 'account_blocked';

/**
 * Why a `disconnected` instance cannot send, when the answer proves it:
 * - not_paired: the instance has a socket but was never paired (its QR code was never read);
 * - no_socket: the gateway holds no connection for the instance at all;
 * - closed: the connection is closed (or the answer does not say more).
 */
export type InstanceCondition = 'not_paired' | 'no_socket' | 'closed';

export class GatewayError extends Error {
  constructor(
    readonly kind: GatewayErrorKind,
    message: string,
    readonly httpStatus?: number,
    /** Only for `disconnected`: what the answer proves about the instance. */
    readonly instanceCondition: InstanceCondition | null = null,
  ) {
    super(message);
    this.name = 'GatewayError';
  }

  /** A send that failed this way may be attempted again: it proved nothing went out. */
  get retryable(): boolean {
    return this.kind === 'transient';
  }

  /** A read (idempotent) may be repeated after any failure that may pass by itself. */
  get readRetryable(): boolean {
    return this.kind === 'transient' || this.kind === 'uncertain';
  }
}

/**
 * A call the target's provider does not have (a Cloud API number asked for Evolution API's
 * webhook, contacts, chats, groups…): rejected, nothing was sent, and asking again will not
 * help, so the HTTP edge answers it with a 400 that names it.
 */
export class NotOfferedByProviderError extends GatewayError {
  constructor(message: string) {
    super('rejected', message);
    this.name = 'NotOfferedByProviderError';
  }
}

/** What each failure proves, as the outcome classes the metrics count (metric-labels.ts). */
const OUTCOME_OF_KIND: Record<GatewayErrorKind, GatewayOutcome> = {
  refused_number: 'refused',
  rejected: 'refused',
  bad_credentials: 'instance_refused',
  unknown_instance: 'instance_refused',
  disconnected: 'disconnected',
  transient: 'not_sent',
  uncertain: 'uncertain',
  target_refused: 'target_refused',
  media_unreachable: 'not_sent',
  throttled: 'not_sent',
  undeliverable: 'refused',
  reengagement_required: 'refused',
  marketing_limit: 'refused',
  account_blocked: 'instance_refused',
};

/** The outcome class of a failed gateway call; `error` for anything but a GatewayError. */
export function gatewayOutcomeOf(error: unknown): GatewayOutcome {
  return error instanceof GatewayError ? OUTCOME_OF_KIND[error.kind] : 'error';
}

/** Gateway contacts, chats and groups, for building user databases from an instance. */
export interface GatewayContact {
  remoteJid: string;
  pushName: string | null;
  isGroup: boolean;
  isSaved: boolean;
}

export interface GatewayChat {
  remoteJid: string;
  pushName: string | null;
  isSaved: boolean;
}

export interface GatewayGroupParticipant {
  id: string;
  phoneNumber: string | null;
}

export interface GatewayGroup {
  id: string;
  subject: string | null;
  participants: GatewayGroupParticipant[];
}

/**
 * The port every feature sends through. One adapter today (Evolution API v2); another
 * gateway is a new adapter, not a change to campaigns or automations.
 * An abstract class so that it is its own DI token.
 */
export abstract class MessagingGateway {
  /**
   * One attempt, no internal retry: the dispatch engine owns retries (and retryCount), since
   * a repeated send can double a message. `to` is normalized digits (5511987654321).
   */
  abstract send(
    target: GatewayTarget,
    to: string,
    message: OutgoingMessage,
    options?: SendOptions,
  ): Promise<SentMessage>;

  /**
   * The instance's own messages to `remoteJid` stored by the gateway within `window`, newest
   * first: how a send whose answer never came is reconciled. An empty answer does not prove
   * the message was not sent (the gateway may not keep messages), only that it cannot be shown.
   */
  abstract findSentMessages(
    target: GatewayTarget,
    remoteJid: string,
    window: { from: Date; to: Date },
  ): Promise<StoredSentMessage[]>;

  /** The instance's webhook (GET /webhook/find); null when it has none. */
  abstract findWebhook(target: GatewayTarget): Promise<InstanceWebhook | null>;

  /** Replaces the instance's one webhook (POST /webhook/set). */
  abstract setWebhook(target: GatewayTarget, settings: InstanceWebhookSettings): Promise<void>;

  /**
   * The instance's own token (GET /instance/fetchInstances), which the gateway puts in its
   * events' `apikey`; null when the gateway does not show it.
   */
  abstract instanceToken(target: GatewayTarget): Promise<string | null>;

  /** Reads retry transient failures a few times inside a short budget. */
  abstract connectionState(target: GatewayTarget): Promise<InstanceConnectionState>;
  abstract findContacts(target: GatewayTarget): Promise<GatewayContact[]>;
  abstract findChats(target: GatewayTarget): Promise<GatewayChat[]>;
  abstract fetchGroups(target: GatewayTarget, withParticipants: boolean): Promise<GatewayGroup[]>;
}
