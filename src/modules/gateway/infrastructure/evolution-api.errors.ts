import type { GatewayOperation } from '../../../common/metrics/metric-labels';
import { OutboundError } from '../../../common/outbound/outbound.errors';
import { GatewayError, InstanceCondition } from '../domain/messaging-gateway';

const DETAIL_MAX_CHARS = 200;

/**
 * `response.message` of the error envelope `{status, error, response:{message}}`, or the
 * top-level `message` of the routes that answer without the wrapper.
 */
export function envelopeMessage(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) {
    return undefined;
  }
  const { response, message } = body as { response?: unknown; message?: unknown };
  if (typeof response === 'object' && response !== null && 'message' in response) {
    return (response as { message?: unknown }).message;
  }
  return message;
}

/**
 * Whether the body is one of the gateway's own error answers: the envelope, or the schema
 * validation's `{status, error, message}` without the wrapper, whose message is always an
 * array of arrays (recorded: `[["numbers does not meet minimum length of 1"]]`). Anything
 * else may come from whatever a tenant pointed the configuration at (a proxy, or a service on
 * the internal network, whose framework may answer `{status, error, message}` too), so its
 * text is never shown.
 */
function isOwnErrorAnswer(status: number, body: unknown): boolean {
  if (typeof body !== 'object' || body === null) {
    return false;
  }
  const { status: inBody, error, message } = body as Record<string, unknown>;
  if (inBody !== status || typeof error !== 'string') {
    return false;
  }
  return isGatewayEnvelope(status, body)
    ? envelopeMessage(body) !== undefined
    : isSchemaViolation(message);
}

/** The gateway's own message, shortened to one line; '' for any other answer. */
function detailOf(status: number, body: unknown): string {
  if (!isOwnErrorAnswer(status, body)) {
    return '';
  }
  const message = envelopeMessage(body);
  const raw = typeof message === 'string' ? message : JSON.stringify(message);
  const oneLine = raw.replace(/\s+/g, ' ').trim();
  return oneLine.length > DETAIL_MAX_CHARS ? `${oneLine.slice(0, DETAIL_MAX_CHARS)}…` : oneLine;
}

function withDetail(text: string, detail: string): string {
  return detail === '' ? text : `${text}: ${detail}`;
}

function refusedNumber(message: unknown): { number?: unknown; jid?: unknown } | undefined {
  const items: unknown[] = Array.isArray(message) ? message.flat() : [message];
  return items.find(
    (item): item is { number?: unknown; jid?: unknown } =>
      typeof item === 'object' && item !== null && (item as { exists?: unknown }).exists === false,
  );
}

function refusedNumberMessage(refused: { number?: unknown; jid?: unknown }): string {
  const who = [refused.number, refused.jid].find(
    (v): v is string => typeof v === 'string' && v !== '',
  );
  return who ? `O número ${who} não está no WhatsApp` : 'O número não está no WhatsApp';
}

function mentions(body: unknown, text: string, needle: RegExp): boolean {
  const message = envelopeMessage(body);
  return needle.test(message === undefined ? text : JSON.stringify(message));
}

function isLicenseRequired(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as { code?: unknown }).code === 'LICENSE_REQUIRED'
  );
}

/**
 * Messages of the gateway's own request validation, raised before anything is sent: the JSON
 * schema (answered as a nested array), and the send controller's and service's checks on
 * text, media, file name and poll (Evolution API v2.3.6, sendMessage.controller.ts and
 * whatsapp.baileys.service.ts).
 */
const VALIDATION_MESSAGES =
  /Owned media must be a url|For base64 the file name must be informed|Text is required|selectableCount in poll|is not a valid (url|base64)|Invalid (format|media type)/i;

function isSchemaViolation(message: unknown): boolean {
  return Array.isArray(message) && message.length > 0 && message.every(Array.isArray);
}

/** The gateway's own error envelope `{status, error, response:{message}}`, not a proxy's page. */
function isGatewayEnvelope(status: number, body: unknown): boolean {
  if (typeof body !== 'object' || body === null) {
    return false;
  }
  const { status: inBody, response } = body as { status?: unknown; response?: unknown };
  return inBody === status && typeof response === 'object' && response !== null;
}

/**
 * What the gateway raises when it reaches for a socket or a session that is not there, before
 * anything is sent (Evolution API v2.3.6, recorded): `this.client.user.id` on a socket that was
 * never paired reads `'id'` of undefined; with no socket at all, `client.sendMessage`,
 * `presenceSubscribe`, `onWhatsApp` or `waUploadToServer` of undefined; and an instance in its
 * database but not loaded has no send method for the controller to call (`textMessage`,
 * `mediaMessage`, `audioWhatsapp`, `pollMessage`: read in sendMessage.controller.ts, not
 * recorded). Only these: the same TypeError on any other property may be raised after
 * WhatsApp took the message.
 */
const UNDEFINED_PROPERTY =
  /Cannot read properties of undefined \(reading '(id|sendMessage|presenceSubscribe|onWhatsApp|waUploadToServer|textMessage|mediaMessage|audioWhatsapp|pollMessage)'\)/;

/** The sends whose media URL the gateway downloads before anything else. */
const MEDIA_SENDS: ReadonlySet<GatewayOperation> = new Set(['send_media', 'send_audio']);

/**
 * The gateway failed to fetch the message's media before anything else (axios, recorded as
 * 500 `["Error: getaddrinfo EAI_AGAIN example.com"]` and `["Error: connect ECONNREFUSED …"]`).
 * Read so only for a media send: another call naming ECONNREFUSED is about the gateway's own
 * network (its Redis or database), not the message.
 */
const MEDIA_FETCH_FAILURES =
  /getaddrinfo|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|AxiosError|Request failed with status code/i;

/** whatsappNumbers' answer for a closed instance: a serialized Boom with 428 inside. */
function isPreconditionBoom(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || !(body as { isBoom?: unknown }).isBoom) {
    return false;
  }
  const output = (body as { output?: { statusCode?: unknown } }).output;
  return output?.statusCode === 428;
}

/**
 * An answer, in any status, that proves the instance cannot send right now: `disconnected`,
 * with what it proves about the instance; null when the answer is about something else.
 */
function unusableInstance(
  status: number,
  body: unknown,
  text: string,
  instance: string,
): GatewayError | null {
  if (mentions(body, text, /Connection Closed/i) || isPreconditionBoom(body)) {
    return disconnected(status, instance, 'closed');
  }
  const message = envelopeMessage(body);
  const property = UNDEFINED_PROPERTY.exec(
    message === undefined ? text : JSON.stringify(message),
  )?.[1];
  if (property === 'id') {
    return disconnected(status, instance, 'not_paired');
  }
  return property ? disconnected(status, instance, 'no_socket') : null;
}

const CONDITION_MESSAGES: Record<InstanceCondition, string> = {
  closed: 'está desconectada do WhatsApp',
  not_paired: 'nunca foi pareada: leia o QR code da instância',
  no_socket: 'não tem conexão aberta no gateway',
};

function disconnected(
  status: number,
  instance: string,
  condition: InstanceCondition,
): GatewayError {
  return new GatewayError(
    'disconnected',
    `A instância "${instance}" ${CONDITION_MESSAGES[condition]}`,
    status,
    condition,
  );
}

/**
 * The GatewayError for a non-2xx answer of the gateway, by what the answer proves about the
 * message (see GatewayErrorKind). Branches on the status, `exists:false` and the envelope's
 * shape; on text only for "Connection Closed", a not-loaded instance and the validation
 * messages above. Choices where the gateway leaves room:
 * - "Connection Closed" in any status, whatsappNumbers' 428 Boom, and "Cannot read properties
 *   of undefined" of the recorded properties in any status are `disconnected`
 *   (unusableInstance): nothing went out.
 * - A 500 naming a failed media fetch, to a media or audio send, is `media_unreachable`: every
 *   contact would fail alike.
 * - 503 LICENSE_REQUIRED (2.4 servers not activated) is `disconnected`: nothing was sent and
 *   nothing will be until someone activates the server, exactly like a closed instance.
 * - Any other 400 is `uncertain`: the gateway turns errors raised after WhatsApp took the
 *   message (saving it, for one) into 400.
 * - A 5xx in the gateway's envelope is raised before the message reaches WhatsApp:
 *   `transient`. 502, 504 and a 5xx without the envelope come from a proxy that may have
 *   passed the request on: `uncertain`.
 * - A 404 that is not the instance guard's (e.g. "Cannot POST /…", a wrong base path or a v1
 *   server) is still `unknown_instance`, with a message pointing at the URL.
 * - 3xx (redirects are not followed) and other 4xx never reached a handler: `rejected`.
 */
export function gatewayErrorFromResponse(
  status: number,
  body: unknown,
  text: string,
  instance: string,
  operation: GatewayOperation,
): GatewayError {
  const detail = detailOf(status, body);
  const unusable = unusableInstance(status, body, text, instance);
  if (unusable) {
    return unusable;
  }
  if (status === 500 && MEDIA_SENDS.has(operation) && mentions(body, text, MEDIA_FETCH_FAILURES)) {
    // Without the gateway's detail: which addresses its network refuses or cannot resolve is
    // the gateway operator's to know, not a tenant's (it would make the gateway a port scanner).
    return new GatewayError(
      'media_unreachable',
      'O gateway não conseguiu baixar a mídia da mensagem',
      status,
    );
  }
  if (status === 400) {
    return badRequestError(body, text, detail);
  }
  if (status === 401 || status === 403) {
    return new GatewayError(
      'bad_credentials',
      `Chave de API recusada pelo gateway (HTTP ${status})`,
      status,
    );
  }
  if (status === 404) {
    return mentions(body, text, /Cannot (GET|POST|PUT|DELETE)/i)
      ? new GatewayError(
          'unknown_instance',
          `Rota não encontrada no gateway (HTTP 404): verifique a URL do gateway`,
          status,
        )
      : new GatewayError(
          'unknown_instance',
          `A instância "${instance}" não existe no gateway`,
          status,
        );
  }
  if (status >= 500) {
    return serverError(status, body, detail);
  }
  if (status === 429) {
    return new GatewayError(
      'transient',
      withDetail('Gateway sobrecarregado (HTTP 429)', detail),
      status,
    );
  }
  return new GatewayError(
    'rejected',
    withDetail(`O gateway recusou a requisição (HTTP ${status})`, detail),
    status,
  );
}

function badRequestError(body: unknown, text: string, detail: string): GatewayError {
  const message = envelopeMessage(body);
  const refused = refusedNumber(message);
  if (refused) {
    return new GatewayError('refused_number', refusedNumberMessage(refused), 400);
  }
  if (isSchemaViolation(message) || mentions(body, text, VALIDATION_MESSAGES)) {
    return new GatewayError(
      'rejected',
      withDetail('O gateway recusou a mensagem (HTTP 400)', detail),
      400,
    );
  }
  return new GatewayError(
    'uncertain',
    withDetail('O gateway respondeu HTTP 400 depois de tentar enviar', detail),
    400,
  );
}

function serverError(status: number, body: unknown, detail: string): GatewayError {
  if (status === 503 && isLicenseRequired(body)) {
    return new GatewayError(
      'disconnected',
      'O gateway não está com a licença ativada (LICENSE_REQUIRED); nenhum envio é possível até ativá-lo',
      status,
    );
  }
  if (status !== 502 && status !== 504 && isGatewayEnvelope(status, body)) {
    return new GatewayError(
      'transient',
      withDetail(`Gateway indisponível no momento (HTTP ${status})`, detail),
      status,
    );
  }
  return new GatewayError(
    'uncertain',
    withDetail(`Resposta HTTP ${status} sem a assinatura do gateway (um proxy?)`, detail),
    status,
  );
}

/**
 * A request that never got an answer. Before the request was written nothing can have been
 * sent (`transient`); after, the gateway may have sent it (`uncertain`).
 */
export function gatewayErrorFromOutbound(error: OutboundError): GatewayError {
  switch (error.kind) {
    case 'invalid_url':
    case 'target_refused':
      return new GatewayError('target_refused', error.message);
    case 'unresolvable':
      return new GatewayError('transient', error.message);
    case 'timeout':
      return error.requestMayHaveArrived
        ? new GatewayError('uncertain', `${error.message}; o gateway não respondeu a tempo`)
        : new GatewayError('transient', `${error.message}; o gateway não respondeu a tempo`);
    case 'network':
    case 'aborted':
      return new GatewayError(
        error.requestMayHaveArrived ? 'uncertain' : 'transient',
        error.message,
      );
    case 'response_too_large':
      return new GatewayError('uncertain', error.message);
  }
}
