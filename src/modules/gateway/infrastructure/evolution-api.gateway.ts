import { Injectable, Logger } from '@nestjs/common';
import {
  OutboundHttpClient,
  OutboundJsonResponse,
  OutboundMethod,
} from '../../../common/outbound/outbound-http.client';
import { OutboundError } from '../../../common/outbound/outbound.errors';
import { RetryPolicy, withRetries } from '../../../common/outbound/retry';
import { AppConfig } from '../../../config/app-config.service';
import {
  GatewayChat,
  GatewayContact,
  GatewayError,
  GatewayGroup,
  GatewayTarget,
  InstanceConnectionState,
  InstanceWebhook,
  InstanceWebhookSettings,
  MessagingGateway,
  OutgoingMessage,
  SendOptions,
  SentMessage,
  StoredSentMessage,
} from '../domain/messaging-gateway';
import { gatewayErrorFromOutbound, gatewayErrorFromResponse } from './evolution-api.errors';
import {
  buildSendRequest,
  toChats,
  toConnectionState,
  toContacts,
  toGroups,
  toInstanceWebhook,
  toSentMessage,
  toStoredSentMessages,
} from './evolution-api.payloads';

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

interface GatewayCall {
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
  ) {
    super();
  }

  async send(
    target: GatewayTarget,
    to: string,
    message: OutgoingMessage,
    options: SendOptions = {},
  ): Promise<SentMessage> {
    const { endpoint, body } = buildSendRequest(to, message, options);
    const data = await this.call(target, {
      method: 'POST',
      path: `/message/${endpoint}/${encodeURIComponent(target.instance)}`,
      json: body,
      timeoutMs: this.config.gatewaySendTimeoutMs + Math.max(0, options.delayMs ?? 0),
    });
    const sent = toSentMessage(data);
    if (!sent.messageId) {
      // A 2xx is the gateway's word that WhatsApp took the message, but without its key we
      // cannot follow it: reconciliation looks it up.
      throw new GatewayError('uncertain', 'O gateway respondeu sem a chave da mensagem enviada');
    }
    return sent;
  }

  async findSentMessages(
    target: GatewayTarget,
    remoteJid: string,
    window: { from: Date; to: Date },
  ): Promise<StoredSentMessage[]> {
    const data = await this.read(target, {
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
    });
    return toStoredSentMessages(data);
  }

  async findWebhook(target: GatewayTarget): Promise<InstanceWebhook | null> {
    const data = await this.read(target, {
      method: 'GET',
      path: `/webhook/find/${encodeURIComponent(target.instance)}`,
      timeoutMs: READ_TIMEOUT_MS,
    });
    return toInstanceWebhook(data);
  }

  async setWebhook(target: GatewayTarget, settings: InstanceWebhookSettings): Promise<void> {
    await this.call(target, {
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
    });
  }

  async connectionState(target: GatewayTarget): Promise<InstanceConnectionState> {
    const data = await this.read(target, {
      method: 'GET',
      path: `/instance/connectionState/${encodeURIComponent(target.instance)}`,
      timeoutMs: READ_TIMEOUT_MS,
    });
    return toConnectionState(data);
  }

  async findContacts(target: GatewayTarget): Promise<GatewayContact[]> {
    const data = await this.read(target, {
      method: 'POST',
      path: `/chat/findContacts/${encodeURIComponent(target.instance)}`,
      json: { where: {} },
      timeoutMs: READ_TIMEOUT_MS,
      maxResponseBytes: READ_MAX_RESPONSE_BYTES,
    });
    return toContacts(data);
  }

  async findChats(target: GatewayTarget): Promise<GatewayChat[]> {
    const data = await this.read(target, {
      method: 'POST',
      path: `/chat/findChats/${encodeURIComponent(target.instance)}`,
      json: {},
      timeoutMs: READ_TIMEOUT_MS,
      maxResponseBytes: READ_MAX_RESPONSE_BYTES,
    });
    return toChats(data);
  }

  async fetchGroups(target: GatewayTarget, withParticipants: boolean): Promise<GatewayGroup[]> {
    const data = await this.read(target, {
      method: 'GET',
      path: `/group/fetchAllGroups/${encodeURIComponent(target.instance)}`,
      query: { getParticipants: String(withParticipants) },
      timeoutMs: GROUPS_TIMEOUT_MS,
      maxResponseBytes: READ_MAX_RESPONSE_BYTES,
    });
    return toGroups(data);
  }

  private read(target: GatewayTarget, call: GatewayCall): Promise<unknown> {
    return withRetries(READ_RETRIES, () => this.call(target, call));
  }

  /** One HTTP exchange; the body of a 2xx answer, else the classified GatewayError. */
  private async call(target: GatewayTarget, call: GatewayCall): Promise<unknown> {
    const url = endpointUrl(target.url, call.path, call.query);
    let response: OutboundJsonResponse;
    try {
      response = await this.http.requestJson({
        method: call.method,
        url,
        headers: { apikey: target.apiKey },
        json: call.json,
        timeoutMs: call.timeoutMs,
        maxResponseBytes: call.maxResponseBytes,
      });
    } catch (error) {
      throw this.failed(
        target,
        call,
        error instanceof OutboundError ? gatewayErrorFromOutbound(error) : error,
      );
    }
    if (response.status >= 200 && response.status < 300) {
      return response.data;
    }
    throw this.failed(
      target,
      call,
      gatewayErrorFromResponse(response.status, response.data, response.text, target.instance),
    );
  }

  /** Logs where and how a call failed: instance and host, never the key. */
  private failed(target: GatewayTarget, call: GatewayCall, error: unknown): unknown {
    if (error instanceof GatewayError) {
      this.logger.debug(
        {
          instance: target.instance,
          host: hostOf(target.url),
          route: call.path.split('/').slice(0, 3).join('/'),
          kind: error.kind,
          httpStatus: error.httpStatus,
        },
        'Gateway call failed',
      );
    }
    return error;
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
