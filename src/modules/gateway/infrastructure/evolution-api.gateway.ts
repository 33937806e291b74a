import { Injectable, Logger } from '@nestjs/common';
import { OutboundHttpClient, OutboundMethod } from '../../../common/outbound/outbound-http.client';
import type { GatewayOperation } from '../../../common/metrics/metric-labels';
import { Metrics } from '../../../common/metrics/metrics';
import { RetryPolicy, withRetries } from '../../../common/outbound/retry';
import { AppConfig } from '../../../config/app-config.service';
import {
  GatewayChat,
  GatewayContact,
  GatewayError,
  GatewayGroup,
  EvolutionTarget,
  InstanceConnectionState,
  InstanceWebhook,
  InstanceWebhookSettings,
  MessagingGateway,
  OutgoingMessage,
  SendOptions,
  SentMessage,
  StoredSentMessage,
} from '../domain/messaging-gateway';
import { gatewayErrorFromResponse } from './evolution-api.errors';
import { loggedCallFailure } from './gateway-call-failure';
import {
  buildSendRequest,
  SendEndpoint,
  toChats,
  toConnectionState,
  toInstanceToken,
  toContacts,
  toGroups,
  toInstanceWebhook,
  toSentMessage,
  toStoredSentMessages,
} from './evolution-api.payloads';
import { exchangeJson, timedGatewayCall } from './timed-gateway-call';

const READ_TIMEOUT_MS = 15_000;
/** Messages one look into the gateway's store reads: a few minutes to one contact. */
const FIND_MESSAGES_PAGE = 50;
/** fetchAllGroups asks WhatsApp live and fetches every group's picture: slow by nature. */
const GROUPS_TIMEOUT_MS = 60_000;
/**
 * Contact and chat lists of a busy number run to tens of megabytes: 64 MB holds the 200,000
 * rows a sync may read, and a sync reads one response at a time.
 */
const READ_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

const READ_RETRIES: RetryPolicy = {
  attempts: 3,
  backoffMs: 300,
  isRetryable: (error) => error instanceof GatewayError && error.readRetryable,
};

const SEND_OPERATIONS: Record<SendEndpoint, GatewayOperation> = {
  sendText: 'send_text',
  sendMedia: 'send_media',
  sendWhatsAppAudio: 'send_audio',
  sendPoll: 'send_poll',
};

interface GatewayCall {
  /** What the call is for, as the metrics label it. */
  operation: GatewayOperation;
  method: OutboundMethod;
  path: string;
  query?: Record<string, string>;
  json?: unknown;
  timeoutMs: number;
  maxResponseBytes?: number;
}

/** Evolution API v2 (gateway/EVOLUTION_API.md) over the outbound HTTP client. */
@Injectable()
export class EvolutionApiGateway extends MessagingGateway {
  private readonly logger = new Logger(EvolutionApiGateway.name);

  constructor(
    private readonly http: OutboundHttpClient,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    super();
  }

  async send(
    target: EvolutionTarget,
    to: string,
    message: OutgoingMessage,
    options: SendOptions = {},
  ): Promise<SentMessage> {
    const { endpoint, body } = buildSendRequest(to, message, options);
    return this.call(
      target,
      {
        operation: SEND_OPERATIONS[endpoint],
        method: 'POST',
        path: `/message/${endpoint}/${encodeURIComponent(target.instance)}`,
        json: body,
        timeoutMs: this.config.gatewaySendTimeoutMs + Math.max(0, options.delayMs ?? 0),
      },
      (data) => {
        const sent = toSentMessage(data);
        if (!sent.messageId) {
          // A 2xx is the gateway's word that WhatsApp took the message, but without its key
          // we cannot follow it: reconciliation looks it up.
          throw new GatewayError(
            'uncertain',
            'O gateway respondeu sem a chave da mensagem enviada',
          );
        }
        return sent;
      },
    );
  }

  async findSentMessages(
    target: EvolutionTarget,
    remoteJid: string,
    window: { from: Date; to: Date },
  ): Promise<StoredSentMessage[]> {
    return this.read(
      target,
      {
        operation: 'find_messages',
        method: 'POST',
        path: `/chat/findMessages/${encodeURIComponent(target.instance)}`,
        json: {
          where: {
            key: { remoteJid, fromMe: true },
            messageTimestamp: { gte: window.from.toISOString(), lte: window.to.toISOString() },
          },
          page: 1,
          offset: FIND_MESSAGES_PAGE,
        },
        timeoutMs: READ_TIMEOUT_MS,
      },
      toStoredSentMessages,
    );
  }

  async findWebhook(target: EvolutionTarget): Promise<InstanceWebhook | null> {
    return this.read(
      target,
      {
        operation: 'find_webhook',
        method: 'GET',
        path: `/webhook/find/${encodeURIComponent(target.instance)}`,
        timeoutMs: READ_TIMEOUT_MS,
      },
      toInstanceWebhook,
    );
  }

  async setWebhook(target: EvolutionTarget, settings: InstanceWebhookSettings): Promise<void> {
    await this.call(
      target,
      {
        operation: 'set_webhook',
        method: 'POST',
        path: `/webhook/set/${encodeURIComponent(target.instance)}`,
        json: {
          webhook: {
            enabled: settings.enabled,
            url: settings.url,
            headers: settings.headers,
            byEvents: false,
            base64: false,
            events: settings.events,
          },
        },
        timeoutMs: READ_TIMEOUT_MS,
      },
      () => undefined,
    );
  }

  async instanceToken(target: EvolutionTarget): Promise<string | null> {
    return this.read(
      target,
      {
        operation: 'fetch_instances',
        method: 'GET',
        path: '/instance/fetchInstances',
        query: { instanceName: target.instance },
        timeoutMs: READ_TIMEOUT_MS,
      },
      (body) => toInstanceToken(body, target.instance),
    );
  }

  async connectionState(target: EvolutionTarget): Promise<InstanceConnectionState> {
    return this.read(
      target,
      {
        operation: 'connection_state',
        method: 'GET',
        path: `/instance/connectionState/${encodeURIComponent(target.instance)}`,
        timeoutMs: READ_TIMEOUT_MS,
      },
      toConnectionState,
    );
  }

  async findContacts(target: EvolutionTarget): Promise<GatewayContact[]> {
    return this.read(
      target,
      {
        operation: 'find_contacts',
        method: 'POST',
        path: `/chat/findContacts/${encodeURIComponent(target.instance)}`,
        json: { where: {} },
        timeoutMs: READ_TIMEOUT_MS,
        maxResponseBytes: READ_MAX_RESPONSE_BYTES,
      },
      toContacts,
    );
  }

  async findChats(target: EvolutionTarget): Promise<GatewayChat[]> {
    return this.read(
      target,
      {
        operation: 'find_chats',
        method: 'POST',
        path: `/chat/findChats/${encodeURIComponent(target.instance)}`,
        json: {},
        timeoutMs: READ_TIMEOUT_MS,
        maxResponseBytes: READ_MAX_RESPONSE_BYTES,
      },
      toChats,
    );
  }

  async fetchGroups(target: EvolutionTarget, withParticipants: boolean): Promise<GatewayGroup[]> {
    return this.read(
      target,
      {
        operation: 'fetch_groups',
        method: 'GET',
        path: `/group/fetchAllGroups/${encodeURIComponent(target.instance)}`,
        query: { getParticipants: String(withParticipants) },
        timeoutMs: GROUPS_TIMEOUT_MS,
        maxResponseBytes: READ_MAX_RESPONSE_BYTES,
      },
      toGroups,
    );
  }

  private read<T>(
    target: EvolutionTarget,
    call: GatewayCall,
    parse: (data: unknown) => T,
  ): Promise<T> {
    return withRetries(READ_RETRIES, () => this.call(target, call, parse));
  }

  /**
   * One HTTP exchange and the reading of its answer: what `parse` makes of a 2xx body, else
   * the classified GatewayError. Each exchange is timed into the metrics with what its answer
   * proves (a send's 2xx without a key is uncertain, not sent).
   */
  private call<T>(
    target: EvolutionTarget,
    call: GatewayCall,
    parse: (data: unknown) => T,
  ): Promise<T> {
    return timedGatewayCall(this.metrics, call.operation, () => this.exchange(target, call), parse);
  }

  /** The body of a 2xx answer, else the classified GatewayError. */
  private async exchange(target: EvolutionTarget, call: GatewayCall): Promise<unknown> {
    try {
      return await exchangeJson(
        this.http,
        {
          method: call.method,
          url: endpointUrl(target.url, call.path, call.query),
          headers: { apikey: target.apiKey },
          json: call.json,
          timeoutMs: call.timeoutMs,
          maxResponseBytes: call.maxResponseBytes,
        },
        (response) =>
          gatewayErrorFromResponse(
            response.status,
            response.data,
            response.text,
            target.instance,
            call.operation,
          ),
      );
    } catch (error) {
      // Where and how the call failed: instance and host, never the key.
      const where = {
        instance: target.instance,
        host: hostOf(target.url),
        route: call.path.split('/').slice(0, 3).join('/'),
      };
      throw loggedCallFailure(this.logger, 'Gateway call failed', where, error);
    }
  }
}

/** Routes hang off the base URL, which may carry a path prefix (https://host/evolution). */
export function endpointUrl(base: string, path: string, query: Record<string, string> = {}): URL {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new GatewayError('target_refused', 'URL do gateway inválida');
  }
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  url.search = new URLSearchParams(query).toString();
  url.hash = '';
  return url;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(inválida)';
  }
}
