import { randomBytes } from 'node:crypto';
import {
  createServer,
  IncomingHttpHeaders,
  IncomingMessage,
  Server,
  ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { isBase64, isURL } from 'class-validator';

/**
 * A real HTTP server on 127.0.0.1 speaking the Evolution API v2 subset the service uses:
 * sends, connection state, contacts, chats, groups and the message store (findMessages).
 * It behaves as Evolution API v2.3.6 (EvolutionAPI/evolution-api, commit 3454bec) does:
 * guards in its order (unknown instance → 404 even with a wrong key, then apikey → 401), the
 * request validation of `src/validate/message.schema.ts` and of the send controller
 * (`isURL` / `isBase64` from class-validator with their default options, the file name a
 * base64 document needs, "Text is required"), "Connection Closed" from a closed instance, and
 * the message store `POST /chat/findMessages` reads. Every request, every accepted send and
 * every request the real gateway would refuse (`refusals`) is recorded.
 */

export type FakeInstanceState = 'open' | 'connecting' | 'close';
export type FakeSendEndpoint = 'sendText' | 'sendMedia' | 'sendWhatsAppAudio' | 'sendPoll';
export type FakeFailureScope = 'send' | 'read' | 'any';

export interface FakeSentMessage {
  instance: string;
  endpoint: FakeSendEndpoint;
  /** `number` as it arrived in the body. */
  number: string;
  body: Record<string, unknown>;
  /** Arrival time (before any response delay). */
  at: Date;
  /** key.id answered to the caller. */
  messageId: string;
  /** The caller's TCP port: tells which process sent it (see its sockets in /proc). */
  remotePort: number | undefined;
}

/** A send the real gateway's validation refuses: the service must never make one. */
export interface FakeRefusal {
  endpoint: FakeSendEndpoint;
  message: string;
  body: Record<string, unknown>;
}

/** What happens to the next sends, beyond a plain answer (see `scriptSends`). */
export type FakeSendScript =
  /** Send the message, then close the connection without answering (lost answer). */
  | 'send-then-drop'
  /** Close the connection after reading the request, sending nothing. */
  | 'drop-without-sending'
  /** Answer 400 ["Error: Connection Closed"] (the is-on-WhatsApp cache path), sending nothing. */
  | 'connection-closed-400'
  /** Send the message, then answer 502 as a proxy in front of the gateway would. */
  | 'send-then-proxy-502'
  | RecordedRefusal;

/**
 * Answers Evolution API v2.3.6 gave, run for real, when it could not send (sending nothing):
 * - not-paired-400: a cached number on a socket that was never paired;
 * - no-socket-400 / no-socket-500: a cached / an uncached number on an instance without socket;
 * - connection-closed-500: an uncached number on a closed or never-paired socket;
 * - media-unreachable-500: a media URL the gateway cannot fetch (DNS failure).
 */
const RECORDED_REFUSALS = [
  'not-paired-400',
  'no-socket-400',
  'no-socket-500',
  'connection-closed-500',
  'media-unreachable-500',
] as const;
export type RecordedRefusal = (typeof RECORDED_REFUSALS)[number];

function isRecordedRefusal(script: FakeSendScript): script is RecordedRefusal {
  return (RECORDED_REFUSALS as readonly string[]).includes(script);
}

function recordedRefusal(script: RecordedRefusal, body: Record<string, unknown>): Reply {
  switch (script) {
    case 'not-paired-400':
      return envelope(400, ["TypeError: Cannot read properties of undefined (reading 'id')"]);
    case 'no-socket-400':
      return envelope(400, [
        "TypeError: Cannot read properties of undefined (reading 'sendMessage')",
      ]);
    case 'no-socket-500':
      return envelope(500, "Cannot read properties of undefined (reading 'onWhatsApp')");
    case 'connection-closed-500':
      return envelope(500, 'Connection Closed');
    case 'media-unreachable-500':
      return envelope(500, [`Error: getaddrinfo EAI_AGAIN ${hostOf(body.media ?? body.audio)}`]);
  }
}

function hostOf(url: unknown): string {
  try {
    return new URL(String(url)).hostname;
  } catch {
    return 'localhost';
  }
}

export interface FakeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The instance named in the route, or null for routes without one. */
  instance: string | null;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; undefined when there was none (the raw text when it was not JSON). */
  body: unknown;
  at: Date;
  /** The status answered. */
  status: number;
  /** The caller's TCP port. */
  remotePort: number | undefined;
}

export interface FakeGroupParticipant {
  id: string;
  phoneNumber?: string;
  lid?: string;
  admin?: 'admin' | 'superadmin' | null;
}

export interface FakeGroup {
  id: string;
  subject: string;
  participants: FakeGroupParticipant[];
  [field: string]: unknown;
}

/** The instance's one webhook, as `POST /webhook/set` stored it. */
export interface FakeWebhook {
  enabled: boolean;
  url: string;
  headers: Record<string, string>;
  events: string[];
  byEvents: boolean;
  base64: boolean;
}

interface FakeInstance {
  apiKey: string;
  webhook: FakeWebhook | null;
  /** null: in the gateway's DB but not loaded in memory (connectionState has no `state`). */
  state: FakeInstanceState | null;
  contacts: Record<string, unknown>[];
  chats: Record<string, unknown>[];
  groups: FakeGroup[];
}

interface Reply {
  status: number;
  body: unknown;
}

interface Waiter {
  count: number;
  resolve: (sent: FakeSentMessage[]) => void;
}

const SEND_ENDPOINTS: readonly FakeSendEndpoint[] = [
  'sendText',
  'sendMedia',
  'sendWhatsAppAudio',
  'sendPoll',
];
const MEDIA_TYPES = ['image', 'video', 'document', 'audio'];

/** Not an HTTP status: the connection is closed without an answer. */
const DROP = -1;

function envelope(status: number, message: unknown): Reply {
  return {
    status,
    body: { status, error: STATUS_CODES[status] ?? 'Error', response: { message } },
  };
}

function schemaError(text: string): Reply {
  return envelope(400, [[text]]);
}

/** Digits of a number or of a JID's user part, as the gateway's createJid reads them. */
function digitsOf(number: string): string {
  return number.split(/[@:]/)[0].replace(/\D/g, '');
}

function jidOf(number: string): string {
  return number.includes('@') ? number : `${digitsOf(number)}@s.whatsapp.net`;
}

export class FakeEvolutionApi {
  readonly sent: FakeSentMessage[] = [];
  readonly requests: FakeRequest[] = [];
  readonly refusals: FakeRefusal[] = [];
  /** DATABASE_SAVE_DATA_NEW_MESSAGE: whether sent messages are kept for findMessages. */
  storesMessages = true;
  private sendScripts: FakeSendScript[] = [];
  /** Per number (its digits): statuses or scripts its next sends follow, before anything shared. */
  private numberScripts = new Map<string, Array<FakeSendScript | number>>();

  private server?: Server;
  private baseUrl?: string;
  private readonly instances = new Map<string, FakeInstance>();
  private readonly refusedNumbers = new Set<string>();
  private failures: { remaining: number; status: number; scope: FakeFailureScope } = {
    remaining: 0,
    status: 500,
    scope: 'send',
  };
  private responseDelayMs = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private waiters: Waiter[] = [];

  /** `globalApiKey`: the server-wide key (AUTHENTICATION_API_KEY) that opens every instance. */
  constructor(private readonly options: { globalApiKey?: string } = {}) {}

  async start(): Promise<void> {
    const server = createServer((req, res) => this.receive(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  get url(): string {
    if (!this.baseUrl) {
      throw new Error('FakeEvolutionApi not started');
    }
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) {
      clearTimeout(timer);
    }
    this.timers.clear();
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  addInstance(name: string, options: { apiKey: string; state?: FakeInstanceState | null }): void {
    this.instances.set(name, {
      apiKey: options.apiKey,
      state: options.state === undefined ? 'open' : options.state,
      webhook: null,
      contacts: [],
      chats: [],
      groups: [],
    });
  }

  removeInstance(name: string): void {
    this.instances.delete(name);
  }

  /** null: known to the gateway but not loaded (state missing; sends fail with a 500). */
  setState(name: string, state: FakeInstanceState | null): void {
    this.instance(name).state = state;
  }

  /** Sends to these digits answer 400 with `exists:false`, like a number not on WhatsApp. */
  refuseNumber(digits: string): void {
    this.refusedNumbers.add(digitsOf(digits));
  }

  /**
   * The next `count` calls in `scope` (sends by default; 'read' for connectionState, contacts,
   * chats and groups) answer `status` with the error envelope, after the guards passed.
   */
  failNext(count: number, status = 500, scope: FakeFailureScope = 'send'): void {
    this.failures = { remaining: count, status, scope };
  }

  /** The instance's webhook as the service registered it (null: none). */
  webhookOf(name: string): FakeWebhook | null {
    return this.instance(name).webhook;
  }

  /** Another system's webhook on the instance, as if set by someone else. */
  setWebhook(name: string, webhook: FakeWebhook | null): void {
    this.instance(name).webhook = webhook;
  }

  /**
   * Delivers one event the way Evolution API's `sendDataWebhook` does: POSTs the envelope
   * `{event, instance, data, destination, date_time, sender, server_url, apikey}` to the
   * instance's webhook with its headers, when it is enabled and subscribed to the event.
   * Answers the receiver's status, or null when nothing was sent.
   */
  async emit(
    name: string,
    event: 'messages.update' | 'messages.upsert' | 'connection.update',
    data: Record<string, unknown>,
    options: { apikey?: string | null; dateTime?: Date } = {},
  ): Promise<number | null> {
    const webhook = this.instance(name).webhook;
    const upper = event.toUpperCase().replace(/\./g, '_');
    if (!webhook?.enabled || !webhook.events.includes(upper)) {
      return null;
    }
    const response = await fetch(webhook.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...webhook.headers },
      body: JSON.stringify({
        event,
        instance: name,
        data,
        destination: webhook.url,
        date_time: (options.dateTime ?? new Date()).toISOString(),
        sender: '5511999990000@s.whatsapp.net',
        server_url: this.url,
        apikey: options.apikey === undefined ? null : options.apikey,
      }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  /** The next sends follow these scripts, one each, in order. */
  scriptSends(...scripts: FakeSendScript[]): void {
    this.sendScripts.push(...scripts);
  }

  /**
   * The next sends to this number (its digits), one step each: an HTTP status answers with the
   * gateway's error envelope, sending nothing (as `failNext`); a script acts as in
   * `scriptSends`. Other numbers' sends are untouched, whatever order the engine sends in.
   */
  scriptSendsTo(number: string, ...steps: Array<FakeSendScript | number>): void {
    const digits = digitsOf(number);
    this.numberScripts.set(digits, [...(this.numberScripts.get(digits) ?? []), ...steps]);
  }

  /** Every answer waits this long (the request is recorded on arrival). */
  setResponseDelay(ms: number): void {
    this.responseDelayMs = ms;
  }

  setContacts(instance: string, rows: Record<string, unknown>[]): void {
    this.instance(instance).contacts = rows;
  }

  setChats(instance: string, rows: Record<string, unknown>[]): void {
    this.instance(instance).chats = rows;
  }

  setGroups(instance: string, groups: FakeGroup[]): void {
    this.instance(instance).groups = groups;
  }

  /** Accepted sends whose `number` has these digits (or equals this JID). */
  sentTo(number: string): FakeSentMessage[] {
    return this.sent.filter((s) => s.number === number || digitsOf(s.number) === digitsOf(number));
  }

  /** Resolves with the sends recorded so far once there are at least `count`. */
  waitForSent(count: number, timeoutMs = 10_000): Promise<FakeSentMessage[]> {
    if (this.sent.length >= count) {
      return Promise.resolve([...this.sent]);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(
          new Error(
            `Expected ${count} sends within ${timeoutMs} ms; the fake gateway got ${this.sent.length}`,
          ),
        );
      }, timeoutMs);
      this.timers.add(timer);
      const waiter: Waiter = {
        count,
        resolve: (sent) => {
          clearTimeout(timer);
          this.timers.delete(timer);
          resolve(sent);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /**
   * Forgets recorded traffic and scripted behaviour (failures, delay, refused numbers).
   * Instances, their states and their fixtures stay.
   */
  reset(): void {
    this.sent.length = 0;
    this.requests.length = 0;
    this.refusals.length = 0;
    this.sendScripts = [];
    this.numberScripts.clear();
    this.storesMessages = true;
    this.refusedNumbers.clear();
    this.failures = { remaining: 0, status: 500, scope: 'send' };
    this.responseDelayMs = 0;
  }

  private instance(name: string): FakeInstance {
    const instance = this.instances.get(name);
    if (!instance) {
      throw new Error(`FakeEvolutionApi: no instance "${name}"; call addInstance first`);
    }
    return instance;
  }

  private receive(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const raw = Buffer.concat(chunks).toString('utf8');
      const record: FakeRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        instance: null,
        headers: req.headers,
        body: parseBody(raw),
        at: new Date(),
        status: 0,
        remotePort: req.socket.remotePort,
      };
      this.requests.push(record);
      const reply = this.route(record, raw);
      record.status = reply.status;
      this.respond(res, reply);
    });
  }

  private respond(res: ServerResponse, reply: Reply): void {
    const write = (): void => {
      if (res.destroyed) {
        return;
      }
      if (reply.status === DROP) {
        res.socket?.destroy();
        return;
      }
      res.writeHead(reply.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    };
    if (this.responseDelayMs <= 0) {
      write();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      write();
    }, this.responseDelayMs);
    this.timers.add(timer);
  }

  private route(request: FakeRequest, raw: string): Reply {
    const segments = request.path.split('/').filter(Boolean);
    if (request.method === 'GET' && segments.length === 0) {
      return {
        status: 200,
        body: {
          status: 200,
          message: 'Welcome to the Evolution API, it is working!',
          version: '2.3.7',
        },
      };
    }
    const handler = this.handlerFor(request.method, segments);
    if (!handler) {
      return envelope(404, [`Cannot ${request.method} ${request.path}`]);
    }
    const name = safeDecode(segments[2]);
    request.instance = name;
    const instance = this.instances.get(name);
    if (!instance) {
      return envelope(404, [`The "${name}" instance does not exist`]);
    }
    const apikey = request.headers.apikey;
    if (
      apikey !== instance.apiKey &&
      (this.options.globalApiKey === undefined || apikey !== this.options.globalApiKey)
    ) {
      return envelope(401, 'Unauthorized');
    }
    const failure = this.takeFailure(handler.scope);
    if (failure) {
      return failure;
    }
    if (raw.trim() !== '' && request.body === raw) {
      return envelope(400, ['Unexpected token in JSON body']);
    }
    return handler.handle(name, instance, request);
  }

  private handlerFor(
    method: string,
    segments: string[],
  ): {
    scope: 'send' | 'read';
    handle: (name: string, instance: FakeInstance, request: FakeRequest) => Reply;
  } | null {
    if (segments.length !== 3) {
      return null;
    }
    const [group, action] = segments;
    const route = `${method} ${group}/${action}`;
    if (
      group === 'message' &&
      method === 'POST' &&
      (SEND_ENDPOINTS as readonly string[]).includes(action)
    ) {
      return {
        scope: 'send',
        handle: (name, instance, request) =>
          this.send(name, instance, action as FakeSendEndpoint, request),
      };
    }
    switch (route) {
      case 'GET instance/connectionState':
        return { scope: 'read', handle: (name, instance) => connectionState(name, instance) };
      case 'POST chat/findContacts':
        return {
          scope: 'read',
          handle: (_name, instance, request) => findContacts(instance, request.body),
        };
      case 'POST webhook/set':
        return {
          scope: 'read',
          handle: (name, instance, request) => setWebhook(name, instance, request.body),
        };
      case 'GET webhook/find':
        return { scope: 'read', handle: (_name, instance) => findWebhook(instance) };
      case 'POST chat/findMessages':
        return {
          scope: 'read',
          handle: (name, _instance, request) => this.findMessages(name, request.body),
        };
      case 'POST chat/findChats':
        return {
          scope: 'read',
          handle: (_name, instance, request) => findChats(instance, request.body),
        };
      case 'GET group/fetchAllGroups':
        return {
          scope: 'read',
          handle: (_name, instance, request) => fetchAllGroups(instance, request.query),
        };
      default:
        return null;
    }
  }

  private takeFailure(scope: 'send' | 'read'): Reply | null {
    const { remaining, status, scope: failing } = this.failures;
    if (remaining <= 0 || (failing !== 'any' && failing !== scope)) {
      return null;
    }
    this.failures = { ...this.failures, remaining: remaining - 1 };
    return envelope(status, [`Simulated failure (HTTP ${status})`]);
  }

  private send(
    name: string,
    instance: FakeInstance,
    endpoint: FakeSendEndpoint,
    request: FakeRequest,
  ): Reply {
    const body = (
      typeof request.body === 'object' && request.body !== null ? request.body : {}
    ) as Record<string, unknown>;
    const invalid = validateSend(endpoint, body);
    if (invalid) {
      this.refusals.push({ endpoint, message: JSON.stringify(invalid.body), body });
      return invalid;
    }
    if (endpoint === 'sendMedia' && body.mediatype === 'document' && !documentHasExtension(body)) {
      // The real gateway takes it and sends a document with the mimetype "false" and a name
      // cut out of the URL (or fails later with a 500): recorded as something never to send.
      this.refusals.push({
        endpoint,
        message: 'document without a file name extension: sent with mimetype "false"',
        body,
      });
    }
    if (instance.state === null) {
      return envelope(500, "Cannot read properties of undefined (reading 'textMessage')");
    }
    if (instance.state !== 'open') {
      return envelope(500, 'Connection Closed');
    }
    const number = body.number as string;
    if (!number.includes('@') && this.refusedNumbers.has(digitsOf(number))) {
      return envelope(400, [{ jid: jidOf(number), exists: false, number }]);
    }
    const step = this.numberScripts.get(digitsOf(number))?.shift();
    if (typeof step === 'number') {
      return envelope(step, [`Simulated failure (HTTP ${step})`]);
    }
    const script = step ?? this.sendScripts.shift();
    if (script === 'drop-without-sending') {
      return { status: DROP, body: null };
    }
    if (script === 'connection-closed-400') {
      return envelope(400, ['Error: Connection Closed']);
    }
    if (script && isRecordedRefusal(script)) {
      return recordedRefusal(script, body);
    }
    const messageId = `3EB0${randomBytes(9).toString('hex').toUpperCase()}`;
    this.sent.push({
      instance: name,
      endpoint,
      number,
      body,
      at: request.at,
      messageId,
      remotePort: request.remotePort,
    });
    this.notifyWaiters();
    if (script === 'send-then-drop') {
      return { status: DROP, body: null };
    }
    if (script === 'send-then-proxy-502') {
      return { status: 502, body: '<html><body>502 Bad Gateway</body></html>' };
    }
    return { status: 201, body: messageRecord(name, endpoint, body, jidOf(number), messageId) };
  }

  /**
   * `POST /chat/findMessages` (channel.service.ts fetchMessages): `where.key` fields match
   * exactly, `messageTimestamp {gte, lte}` (dates) bounds the stored Unix seconds when both
   * are given; newest first, in pages of `offset` (default 50).
   */
  private findMessages(name: string, body: unknown): Reply {
    const filter = where(body);
    const key = (filter.key ?? {}) as Record<string, unknown>;
    const range = (filter.messageTimestamp ?? {}) as { gte?: unknown; lte?: unknown };
    const gte = typeof range.gte === 'string' ? Date.parse(range.gte) / 1000 : NaN;
    const lte = typeof range.lte === 'string' ? Date.parse(range.lte) / 1000 : NaN;
    const rows = (this.storesMessages ? this.sent : [])
      .filter((s) => s.instance === name)
      .map((s) => ({ sent: s, jid: jidOf(s.number), seconds: Math.floor(s.at.getTime() / 1000) }))
      .filter(({ sent, jid, seconds }) => {
        if (key.id !== undefined && key.id !== sent.messageId) {
          return false;
        }
        if (key.remoteJid !== undefined && key.remoteJid !== jid) {
          return false;
        }
        if (key.fromMe !== undefined && key.fromMe !== true) {
          return false;
        }
        return (
          Number.isNaN(gte) || Number.isNaN(lte) || (seconds >= Math.floor(gte) && seconds <= lte)
        );
      })
      .reverse();
    const { page, offset } = (body ?? {}) as { page?: unknown; offset?: unknown };
    const size = typeof offset === 'number' && offset > 0 ? offset : 50;
    const current = typeof page === 'number' && page > 0 ? page : 1;
    const records = rows
      .slice((current - 1) * size, current * size)
      .map(({ sent, jid, seconds }) => ({
        id: `row-${sent.messageId}`,
        key: { remoteJid: jid, fromMe: true, id: sent.messageId },
        pushName: 'Você',
        messageType: messageTypeOf(sent.endpoint, sent.body),
        message: {},
        messageTimestamp: seconds,
        instanceId: `fake-${name}`,
        source: 'web',
        contextInfo: null,
        MessageUpdate: [],
      }));
    return {
      status: 200,
      body: {
        messages: {
          total: rows.length,
          pages: Math.ceil(rows.length / size),
          currentPage: current,
          records,
        },
      },
    };
  }

  private notifyWaiters(): void {
    const ready = this.waiters.filter((w) => this.sent.length >= w.count);
    this.waiters = this.waiters.filter((w) => this.sent.length < w.count);
    for (const waiter of ready) {
      waiter.resolve([...this.sent]);
    }
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function parseBody(raw: string): unknown {
  if (raw.trim() === '') {
    return undefined;
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function validateSend(endpoint: FakeSendEndpoint, body: Record<string, unknown>): Reply | null {
  if (body.number === undefined) {
    return schemaError('instance requires property "number"');
  }
  if (typeof body.number !== 'string') {
    return schemaError('Invalid format');
  }
  if (body.delay !== undefined && !Number.isInteger(body.delay)) {
    return schemaError('Enter a value in milliseconds');
  }
  switch (endpoint) {
    case 'sendText':
      return validateText(body);
    case 'sendMedia':
      return validateMedia(body);
    case 'sendWhatsAppAudio':
      return validateAudio(body);
    case 'sendPoll':
      return validatePoll(body);
  }
}

function validateText(body: Record<string, unknown>): Reply | null {
  if (body.text === undefined) {
    return schemaError('instance requires property "text"');
  }
  if (typeof body.text !== 'string') {
    return schemaError('instance.text is not of a type(s) string');
  }
  return body.text.trim() === '' ? envelope(400, ['Text is required']) : null;
}

/**
 * The send controller's media checks: a URL passes class-validator's `isURL`, anything else
 * must pass `isBase64` as it is (no whitespace, standard alphabet, padded); a base64 document
 * needs its file name.
 */
function validateMedia(body: Record<string, unknown>): Reply | null {
  if (typeof body.mediatype !== 'string' || !MEDIA_TYPES.includes(body.mediatype)) {
    return schemaError(`instance.mediatype is not one of enum values: ${MEDIA_TYPES.join(',')}`);
  }
  const media = typeof body.media === 'string' ? body.media : '';
  if (!isURL(media) && !isBase64(media)) {
    return envelope(400, ['Owned media must be a url or base64']);
  }
  if (body.mediatype === 'document' && isBase64(media) && !body.fileName) {
    return envelope(400, ['For base64 the file name must be informed.']);
  }
  return null;
}

/** The gateway derives a document's MIME type from its file name, or from the URL's. */
function documentHasExtension(body: Record<string, unknown>): boolean {
  if (typeof body.fileName === 'string' && body.fileName) {
    return /\.[A-Za-z0-9]{1,5}$/.test(body.fileName);
  }
  try {
    return /\.[A-Za-z0-9]{1,5}$/.test(new URL(String(body.media)).pathname);
  } catch {
    return false;
  }
}

function validateAudio(body: Record<string, unknown>): Reply | null {
  const audio = typeof body.audio === 'string' ? body.audio : '';
  return isURL(audio) || isBase64(audio)
    ? null
    : envelope(400, ['Owned media must be a url, base64, or valid file with buffer']);
}

function validatePoll(body: Record<string, unknown>): Reply | null {
  if (typeof body.name !== 'string') {
    return schemaError('instance requires property "name"');
  }
  const { selectableCount, values } = body;
  if (
    typeof selectableCount !== 'number' ||
    !Number.isInteger(selectableCount) ||
    selectableCount < 0 ||
    selectableCount > 10
  ) {
    return schemaError('instance.selectableCount must be an integer between 0 and 10');
  }
  if (
    !Array.isArray(values) ||
    values.length < 2 ||
    values.length > 10 ||
    values.some((v) => typeof v !== 'string')
  ) {
    return schemaError('instance.values must be an array of 2 to 10 strings');
  }
  if (new Set(values).size !== values.length) {
    return schemaError('instance.values contains duplicate items');
  }
  if (selectableCount > values.length) {
    return envelope(400, [
      `Error: poll.selectableCount in poll should be >= 0 and <= ${values.length}`,
    ]);
  }
  return null;
}

function messageTypeOf(endpoint: FakeSendEndpoint, body: Record<string, unknown>): string {
  switch (endpoint) {
    case 'sendText':
      return 'conversation';
    case 'sendMedia':
      return `${String(body.mediatype)}Message`;
    case 'sendWhatsAppAudio':
      return 'audioMessage';
    case 'sendPoll':
      return body.selectableCount === 1 ? 'pollCreationMessageV3' : 'pollCreationMessage';
  }
}

function messageRecord(
  name: string,
  endpoint: FakeSendEndpoint,
  body: Record<string, unknown>,
  remoteJid: string,
  id: string,
): Record<string, unknown> {
  const messageType = messageTypeOf(endpoint, body);
  const content =
    endpoint === 'sendText'
      ? body.text
      : endpoint === 'sendPoll'
        ? {
            name: body.name,
            options: (body.values as string[]).map((optionName) => ({ optionName })),
            selectableOptionsCount: body.selectableCount,
          }
        : { mimetype: body.mimetype, caption: body.caption, fileName: body.fileName };
  return {
    key: { remoteJid, fromMe: true, id },
    pushName: 'Você',
    status: 'PENDING',
    message: { [messageType]: content },
    messageType,
    messageTimestamp: Math.floor(Date.now() / 1000),
    instanceId: `fake-${name}`,
    source: 'web',
  };
}

function connectionState(name: string, instance: FakeInstance): Reply {
  return {
    status: 200,
    body: {
      instance:
        instance.state === null
          ? { instanceName: name }
          : { instanceName: name, state: instance.state },
    },
  };
}

function where(body: unknown): Record<string, unknown> {
  const value = (body as { where?: unknown } | undefined)?.where;
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function findContacts(instance: FakeInstance, body: unknown): Reply {
  const filter = where(body);
  let rows = instance.contacts;
  if (typeof filter.remoteJid === 'string') {
    rows = rows.filter((row) => row.remoteJid === jidOf(filter.remoteJid as string));
  }
  const { offset, page } = (body ?? {}) as { offset?: unknown; page?: unknown };
  if (typeof offset === 'number' && offset > 0) {
    const start = ((typeof page === 'number' && page > 0 ? page : 1) - 1) * offset;
    rows = rows.slice(start, start + offset);
  }
  return { status: 200, body: rows };
}

function findChats(instance: FakeInstance, body: unknown): Reply {
  const filter = where(body);
  let rows = instance.chats;
  if (typeof filter.remoteJid === 'string') {
    rows = rows.filter((row) => row.remoteJid === jidOf(filter.remoteJid as string));
  }
  const { take, skip } = (body ?? {}) as { take?: unknown; skip?: unknown };
  const start = typeof skip === 'number' && skip > 0 ? skip : 0;
  rows = typeof take === 'number' && take > 0 ? rows.slice(start, start + take) : rows.slice(start);
  return { status: 200, body: rows };
}

function fetchAllGroups(instance: FakeInstance, query: Record<string, string>): Reply {
  const getParticipants = query.getParticipants;
  if (getParticipants !== 'true' && getParticipants !== 'false') {
    return envelope(400, ['The getParticipants needs to be informed in the query']);
  }
  if (instance.state !== 'open') {
    return envelope(500, 'Connection Closed');
  }
  const groups = instance.groups.map((group) => {
    if (getParticipants === 'true') {
      return group;
    }
    const { participants: _participants, ...withoutParticipants } = group;
    return withoutParticipants;
  });
  return { status: 200, body: groups };
}

/** Evolution API v2.3.6 `webhookSchema`: `webhook {enabled, url}` required; events by enum. */
function setWebhook(name: string, instance: FakeInstance, body: unknown): Reply {
  const webhook = (body as { webhook?: unknown } | undefined)?.webhook as
    Record<string, unknown> | undefined;
  if (!webhook || typeof webhook !== 'object') {
    return schemaError('instance requires property "webhook"');
  }
  if (
    typeof webhook.enabled !== 'boolean' ||
    typeof webhook.url !== 'string' ||
    webhook.url === ''
  ) {
    return schemaError('instance.webhook requires property "enabled" and "url"');
  }
  const events = Array.isArray(webhook.events) ? (webhook.events as string[]) : [];
  instance.webhook = {
    enabled: webhook.enabled,
    url: webhook.url,
    headers: (webhook.headers ?? {}) as Record<string, string>,
    // Disabled: the gateway clears the events; enabled with none: every event.
    events: webhook.enabled ? events : [],
    byEvents: webhook.byEvents === true,
    base64: webhook.base64 === true,
  };
  return { status: 201, body: webhookRecord(name, instance.webhook) };
}

function findWebhook(instance: FakeInstance): Reply {
  return { status: 200, body: instance.webhook ? webhookRecord('', instance.webhook) : null };
}

function webhookRecord(name: string, webhook: FakeWebhook): Record<string, unknown> {
  return {
    id: `webhook-${name}`,
    url: webhook.url,
    headers: webhook.headers,
    enabled: webhook.enabled,
    events: webhook.events,
    webhookByEvents: webhook.byEvents,
    webhookBase64: webhook.base64,
    instanceId: `fake-${name}`,
  };
}
