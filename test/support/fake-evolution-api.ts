import { randomBytes, randomUUID } from 'node:crypto';
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
 * sends, connection state, contacts, chats, groups, the message store (findMessages), the
 * instance's webhook and the events it posts, whatsappNumbers and fetchInstances.
 * It behaves as Evolution API v2.3.6 (EvolutionAPI/evolution-api, commit 3454bec) does:
 * guards in its order (unknown instance → 404 even with a wrong key, then apikey → 401), the
 * request validation of `src/validate/message.schema.ts` and of the send controller
 * (`isURL` / `isBase64` from class-validator with their default options, the file name a
 * base64 document needs, "Text is required"), and the message store `POST /chat/findMessages`
 * reads. An instance that cannot send answers as the real gateway was recorded answering in
 * each of its states (test/fixtures/evolution-2.3.6-observed.json, replayed against this fake
 * by test/e2e/gateway/evolution-recording.e2e-spec.ts), for numbers in the gateway's
 * is-on-WhatsApp cache (any number a send reached before, or `cacheNumber`) and for the others.
 * Every request, every accepted send and every request the real gateway would refuse
 * (`refusals`) is recorded. It posts the instance's webhook events: connection storms, and
 * receipts, nacks and incoming messages built as v2.3.6 builds them (`emitReceipt`, `emitNack`,
 * `emitInbound`).
 */

/**
 * What `connectionState` answers, and how sends fail when it is not `open`:
 * - `close`: paired once, then disconnected ("Connection Closed");
 * - `connecting`: a socket being opened (answers as `close`);
 * - `no-socket`: created but never connected, so the gateway has no socket to reach
 *   (`TypeError … of undefined`); connectionState says `close`;
 * - `never-paired`: a socket that reconnects in a loop and was never paired (its QR code never
 *   read): `(reading 'id')` for cached numbers, "Connection Closed" otherwise; connectionState
 *   says `close` (the real one says `connecting` about one time in three), and
 *   `playReconnectStorm` plays its stream of events.
 */
export type FakeInstanceState = 'open' | 'connecting' | 'close' | 'no-socket' | 'never-paired';
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
  /** key.id answered to the caller: receipts and nacks name the message by it (`keyId`). */
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
  | 'send-then-proxy-502';

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

/** Why the gateway cannot fetch a media URL (axios' error code). */
export type FakeMediaFetchFailure = 'EAI_AGAIN' | 'ECONNREFUSED';

/** What the receiver answered the events of a storm, by HTTP status (0: no answer). */
export interface FakeStormResult {
  posted: number;
  statuses: Record<number, number>;
}

/** A receipt's status, as Evolution's `renderStatus` names Baileys' `WebMessageInfo.Status`. */
export type FakeReceiptStatus = 'SERVER_ACK' | 'DELIVERY_ACK' | 'READ' | 'PLAYED';

/** How a built event is posted (as `emit`'s options) and which chat it names. */
export interface FakeEventOptions {
  /**
   * The chat as WhatsApp's receipt names it (`key.remoteJid`): the number's JID unless given,
   * e.g. `…@lid` once the contact moved to LIDs. Needed for a message the fake did not send.
   */
  remoteJid?: string;
  apikey?: string | null;
  dateTime?: Date;
}

export interface FakeNackOptions extends FakeEventOptions {
  /**
   * The ack's `error` attribute, which Baileys puts in `messageStubParameters`: "463" by
   * default (NACK_REASONS.SenderReachoutTimelocked, the account may not reach out).
   */
  code?: string;
  /**
   * Adds `messageStubParameters: [code]` to `data`, as a gateway that forwarded them would.
   * Off by default: no Evolution API release up to 2.4.0-rc2 forwards them.
   */
  forwardStubParameters?: boolean;
}

/**
 * What a person sends, as Baileys decodes it: `conversation` (a plain text from a phone),
 * `extendedText` (`extendedTextMessage {text}`: a text with a link preview, or typed in
 * WhatsApp Web or Desktop) or `image` (`imageMessage`, with its caption if any).
 */
export type FakeInboundKind = 'conversation' | 'extendedText' | 'image';

export interface FakeInboundMessage {
  /** The person's number (digits or a phone-number JID). */
  from: string;
  /** The text of `conversation` and `extendedText`. */
  text?: string;
  /** An image's caption; none when absent. */
  caption?: string;
  kind?: FakeInboundKind;
  /**
   * The person's LID (digits or `…@lid`). Baileys 7 then knows both JIDs: a LID-addressed
   * message (the default `addressing`) has the LID in `key.remoteJid` and the number in
   * `key.remoteJidAlt`; a number-addressed one the other way round.
   */
  lid?: string;
  addressing?: 'lid' | 'pn';
  /** The sender's WhatsApp name (`notify`), "Maria Souza" unless given; null or "": none. */
  pushName?: string | null;
  apikey?: string | null;
  /** When the message was sent: `messageTimestamp` and the envelope's `date_time`. */
  dateTime?: Date;
}

/** The gateway's `Webhook` row beyond what was set: its id, timestamps. */
interface WebhookRow {
  id: string;
  createdAt: Date;
  updatedAt: Date;
}

interface FakeInstance {
  /** The instance's own token: the gateway accepts it as `apikey` for this instance. */
  apiKey: string;
  /** The gateway's `Instance.id`. */
  id: string;
  createdAt: Date;
  webhook: FakeWebhook | null;
  webhookRow: WebhookRow | null;
  /** Digits of the numbers in the gateway's is-on-WhatsApp cache: sends skip the lookup. */
  cachedNumbers: Set<string>;
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
const MEDIA_TYPES = ['image', 'document', 'video', 'audio'];
/** `EventController.events`: the names `webhook/set` takes; enabled with none means all. */
const WEBHOOK_EVENTS = [
  'APPLICATION_STARTUP',
  'QRCODE_UPDATED',
  'MESSAGES_SET',
  'MESSAGES_UPSERT',
  'MESSAGES_EDITED',
  'MESSAGES_UPDATE',
  'MESSAGES_DELETE',
  'SEND_MESSAGE',
  'SEND_MESSAGE_UPDATE',
  'CONTACTS_SET',
  'CONTACTS_UPSERT',
  'CONTACTS_UPDATE',
  'PRESENCE_UPDATE',
  'CHATS_SET',
  'CHATS_UPSERT',
  'CHATS_UPDATE',
  'CHATS_DELETE',
  'GROUPS_UPSERT',
  'GROUP_UPDATE',
  'GROUP_PARTICIPANTS_UPDATE',
  'CONNECTION_UPDATE',
  'LABELS_EDIT',
  'LABELS_ASSOCIATION',
  'CALL',
  'TYPEBOT_START',
  'TYPEBOT_CHANGE_STATUS',
  'REMOVE_INSTANCE',
  'LOGOUT_INSTANCE',
  'INSTANCE_CREATE',
  'INSTANCE_DELETE',
  'STATUS_INSTANCE',
];
/** The send controller's method a not-loaded instance lacks (`waInstances[name]` undefined). */
const CONTROLLER_METHODS: Record<FakeSendEndpoint, string> = {
  sendText: 'textMessage',
  sendMedia: 'mediaMessage',
  sendWhatsAppAudio: 'audioWhatsapp',
  sendPoll: 'pollMessage',
};
/** whatsappNumbers' answer when WhatsApp must be asked and the socket is closed (recorded). */
const CLOSED_BOOM = {
  data: null,
  isBoom: true,
  isServer: false,
  output: {
    statusCode: 428,
    payload: { statusCode: 428, error: 'Precondition Required', message: 'Connection Closed' },
    headers: {},
  },
};

/** Not an HTTP status: the connection is closed without an answer. */
const DROP = -1;

function envelope(status: number, message: unknown): Reply {
  return {
    status,
    body: { status, error: STATUS_CODES[status] ?? 'Error', response: { message } },
  };
}

/** The router's JSON-schema refusal: one array of messages inside the message array. */
function schemaError(text: string): Reply {
  return envelope(400, [[text]]);
}

/** What reaching for a socket or session that is not there throws. */
function undefinedRead(property: string): string {
  return `Cannot read properties of undefined (reading '${property}')`;
}

/** No socket object at all: not loaded, or created and never connected. */
function hasNoSocket(state: FakeInstanceState | null): boolean {
  return state === null || state === 'no-socket';
}

/** Digits of a number or of a JID's user part, as the gateway's createJid reads them. */
function digitsOf(number: string): string {
  return number.split(/[@:]/)[0].replace(/\D/g, '');
}

function jidOf(number: string): string {
  return number.includes('@') ? number : `${digitsOf(number)}@s.whatsapp.net`;
}

/** A Prisma `cuid()`-like row id: `c` and 24 lowercase characters. */
function cuid(): string {
  return `c${randomBytes(12).toString('hex')}`;
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
  /** Hosts (`host` or `host:port`) whose media the gateway cannot fetch, and why. */
  private readonly unreachableMediaHosts = new Map<string, FakeMediaFetchFailure>();
  private failures: { remaining: number; status: number; scope: FakeFailureScope } = {
    remaining: 0,
    status: 500,
    scope: 'send',
  };
  private responseDelayMs = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private waiters: Waiter[] = [];
  private stopped = false;
  /** `${instance}_${keyId}_${status}` of the updates posted: the gateway posts each once. */
  private readonly postedUpdates = new Set<string>();
  /** The gateway's `Message.id` (a cuid) of each sent message, made when first asked for. */
  private readonly rowIds = new WeakMap<FakeSentMessage, string>();

  /** `globalApiKey`: the server-wide key (AUTHENTICATION_API_KEY) that opens every instance. */
  constructor(private readonly options: { globalApiKey?: string } = {}) {}

  async start(): Promise<void> {
    const server = createServer((req, res) => this.receive(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.stopped = false;
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
    this.stopped = true;
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
      id: randomUUID(),
      createdAt: new Date(),
      state: options.state === undefined ? 'open' : options.state,
      webhook: null,
      webhookRow: null,
      cachedNumbers: new Set(),
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

  /**
   * Puts a number in the instance's is-on-WhatsApp cache, as a number the instance reached
   * before: its sends skip the lookup, so a broken instance answers them differently.
   */
  cacheNumber(name: string, number: string): void {
    this.instance(name).cachedNumbers.add(digitsOf(number));
  }

  /**
   * The gateway cannot fetch media from this host (`example.com`, or `127.0.0.1:9` for one
   * port): an image or audio URL there answers the recorded 500 before anything else.
   */
  unreachableMedia(host: string, failure: FakeMediaFetchFailure = 'EAI_AGAIN'): void {
    this.unreachableMediaHosts.set(host, failure);
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
    storeWebhook(this.instance(name), webhook);
  }

  /**
   * Delivers one event the way Evolution API's `sendDataWebhook` does: POSTs the envelope
   * `{event, instance, data, destination, date_time, sender, server_url, apikey}` to the
   * instance's webhook with its headers, when it is enabled and subscribed to the event
   * (v2.3.6: channel.service.ts lines 434–456, webhook.controller.ts lines 87–132; `sender` is
   * the connected number's JID, `apikey` null unless AUTHENTICATION_EXPOSE_IN_FETCH_INSTANCES).
   * `data` is the caller's: `emitReceipt`, `emitNack` and `emitInbound` build it as v2.3.6 does.
   * Answers the receiver's status, or null when nothing was sent.
   */
  async emit(
    name: string,
    event: 'messages.update' | 'messages.upsert' | 'connection.update',
    data: Record<string, unknown>,
    options: { apikey?: string | null; dateTime?: Date } = {},
  ): Promise<number | null> {
    const webhook = this.instance(name).webhook;
    if (!webhook || !subscribes(webhook, event)) {
      return null;
    }
    return this.deliver(webhook, {
      event,
      instance: name,
      data,
      date_time: (options.dateTime ?? new Date()).toISOString(),
      sender: '5511999990000@s.whatsapp.net',
      apikey: options.apikey === undefined ? null : options.apikey,
    });
  }

  /**
   * WhatsApp's receipt of one of the fake's sends, as Evolution API v2.3.6 posts it
   * (whatsapp.baileys.service.ts at 3454bec, the `messages.update` handler, lines 1428–1551).
   * Baileys 7.0.0-rc.6 makes of the receipt `{key {remoteJid, id, fromMe: true, participant},
   * update {status}}` (messages-recv.ts handleReceipt, lines 1006–1065; `participant` only in
   * groups; SERVER_ACK is the `sender` receipt). Evolution builds `{keyId, remoteJid, fromMe,
   * participant, status, pollUpdates, instanceId}` (lines 1475–1483) and, when it stores
   * messages, looks the message up and adds `messageId`, its row id, or skips the update when
   * it is not there (lines 1485–1502). Undefined fields leave the JSON, so a one-to-one receipt
   * posts `data {keyId, remoteJid, fromMe, status, instanceId, messageId}`; with
   * `storesMessages` off, without `messageId`. A repeated (message, status) is dropped, as the
   * gateway's 30-minute cache does (lines 1440–1449): use `emit` to post a duplicate.
   * Answers the receiver's status, or null when nothing was posted.
   */
  emitReceipt(
    name: string,
    messageId: string,
    status: FakeReceiptStatus,
    options: FakeEventOptions = {},
  ): Promise<number | null> {
    return this.emitUpdate(name, messageId, status, {}, options);
  }

  /**
   * WhatsApp refuses a message the gateway accepted: the server's ack carries an `error`, and
   * Baileys 7.0.0-rc.6 emits `messages.update` `{key {remoteJid, fromMe: true, id}, update
   * {status: ERROR, messageStubParameters: [error]}}` (messages-recv.ts handleBadAck, lines
   * 1325–1356). Evolution API v2.3.6 builds `data` from `key` and `update.status` only (lines
   * 1475–1483), so it posts `status: "ERROR"` and drops the code: `data {keyId, remoteJid,
   * fromMe, status, instanceId, messageId}`, like a receipt. So do 2.3.7 and 2.4.0-rc1/rc2
   * (the same object at 2.3.7 line 1613, 2.4.0-rc2 line 1803; 2.3.7 adds `message` only for
   * edits). `forwardStubParameters` plays a gateway that would forward the code.
   */
  emitNack(name: string, messageId: string, options: FakeNackOptions = {}): Promise<number | null> {
    const stub = options.forwardStubParameters
      ? { messageStubParameters: [options.code ?? '463'] }
      : {};
    return this.emitUpdate(name, messageId, 'ERROR', stub, options);
  }

  /**
   * A person writes to the instance's number: the `messages.upsert` Evolution API v2.3.6 posts
   * (whatsapp.baileys.service.ts at 3454bec: `prepareMessage`, lines 4486–4538, posted as is at
   * line 1353; see `inboundRecord`). As the gateway does (line 1383), the sender's number joins
   * its is-on-WhatsApp cache. Answers the message's key id.
   */
  async emitInbound(name: string, message: FakeInboundMessage): Promise<string> {
    const instance = this.instance(name);
    // A phone's message id: 32 hex characters, which Baileys' getDevice reads as `android`.
    const id = randomBytes(16).toString('hex').toUpperCase();
    const base64 = instance.webhook?.base64 === true;
    await this.emit(name, 'messages.upsert', inboundRecord(instance.id, id, message, base64), {
      apikey: message.apikey,
      dateTime: message.dateTime,
    });
    instance.cachedNumbers.add(digitsOf(message.from));
    return id;
  }

  /** Posts a `messages.update` for one message, once per status, unless the gateway skips it. */
  private async emitUpdate(
    name: string,
    messageId: string,
    status: string,
    extra: Record<string, unknown>,
    options: FakeEventOptions,
  ): Promise<number | null> {
    const data = this.messageUpdate(name, messageId, status, options.remoteJid);
    const once = `${name}_${messageId}_${status}`;
    if (!data || this.postedUpdates.has(once)) {
      return null;
    }
    this.postedUpdates.add(once);
    return this.emit(name, 'messages.update', { ...data, ...extra }, options);
  }

  /** v2.3.6's update `data` for a message sent from the instance; null when it is skipped. */
  private messageUpdate(
    name: string,
    messageId: string,
    status: string,
    remoteJid: string | undefined,
  ): Record<string, unknown> | null {
    const sent = this.sent.find((s) => s.instance === name && s.messageId === messageId);
    if (this.storesMessages && !sent) {
      return null;
    }
    const jid = remoteJid ?? (sent && jidOf(sent.number));
    if (!jid) {
      throw new Error(
        `FakeEvolutionApi: ${messageId} was not sent through the fake; give remoteJid`,
      );
    }
    return {
      keyId: messageId,
      remoteJid: jid,
      fromMe: true,
      status,
      instanceId: this.instance(name).id,
      ...(sent && this.storesMessages ? { messageId: this.rowIdOf(sent) } : {}),
    };
  }

  /**
   * Plays the reconnect loop of a socket that can never pair: `perSecond` `connection.update`
   * "connecting" events a second for `seconds` (recorded: about 70 a second, 4,541 in 65 s),
   * each posted without waiting for the others, as recorded: `data {instance, state:
   * "connecting", statusReason: 200}`, no `sender` (never paired), the instance's own token as
   * `apikey` unless `apikey` is given. Resolves once every post has an answer.
   */
  async playReconnectStorm(
    name: string,
    options: { perSecond: number; seconds: number; apikey?: string },
  ): Promise<FakeStormResult> {
    const instance = this.instance(name);
    const total = Math.round(options.perSecond * options.seconds);
    const webhook = instance.webhook;
    if (!webhook || !subscribes(webhook, 'connection.update')) {
      return { posted: 0, statuses: {} };
    }
    const posts: Array<Promise<number>> = [];
    const startedAt = performance.now();
    while (posts.length < total && !this.stopped) {
      const due = Math.ceil(((performance.now() - startedAt) / 1000) * options.perSecond);
      while (posts.length < Math.min(total, Math.max(due, 1))) {
        posts.push(
          this.deliver(webhook, {
            event: 'connection.update',
            instance: name,
            data: { instance: name, state: 'connecting', statusReason: 200 },
            date_time: new Date().toISOString(),
            apikey: options.apikey ?? instance.apiKey,
          }).catch(() => 0),
        );
      }
      // A real span: the storm is a rate, posted in steps of 5 ms.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const statuses: Record<number, number> = {};
    for (const status of await Promise.all(posts)) {
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
    return { posted: posts.length, statuses };
  }

  /** One webhook POST; `byEvents` appends the event's name to the URL, as the gateway does. */
  private async deliver(
    webhook: FakeWebhook,
    envelope: { event: string } & Record<string, unknown>,
  ): Promise<number> {
    const url = webhook.byEvents
      ? `${webhook.url}/${envelope.event.replace(/\./g, '-')}`
      : webhook.url;
    const { event, instance, data, date_time, sender, apikey } = envelope;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...webhook.headers },
      body: JSON.stringify({
        event,
        instance,
        data,
        destination: webhook.url,
        date_time,
        sender,
        server_url: this.url,
        apikey,
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
   * Forgets recorded traffic, what it taught the gateway (cached numbers, updates posted) and
   * scripted behaviour (failures, delay, refused numbers, unreachable media). Instances, their
   * states and their fixtures stay.
   */
  reset(): void {
    this.sent.length = 0;
    this.requests.length = 0;
    this.refusals.length = 0;
    this.sendScripts = [];
    this.numberScripts.clear();
    this.storesMessages = true;
    this.refusedNumbers.clear();
    this.unreachableMediaHosts.clear();
    for (const instance of this.instances.values()) {
      instance.cachedNumbers.clear();
    }
    this.failures = { remaining: 0, status: 500, scope: 'send' };
    this.responseDelayMs = 0;
    this.postedUpdates.clear();
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
      return { status: 200, body: WELCOME };
    }
    if (request.method === 'GET' && request.path === '/instance/fetchInstances') {
      return this.fetchInstances(request);
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
      case 'POST chat/whatsappNumbers':
        return {
          scope: 'read',
          handle: (_name, instance, request) =>
            whatsappNumbers(instance, request.body, this.refusedNumbers),
        };
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
          handle: (_name, instance, request) => setWebhook(instance, request.body),
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
    // Refused whatever the state, though a broken instance may fail before it gets there.
    const tooManyChoices = pollChoicesError(endpoint, body);
    if (tooManyChoices) {
      this.refusals.push({ endpoint, message: JSON.stringify(tooManyChoices.body), body });
    }
    const unsent = this.mediaFetchFailure(endpoint, body) ?? notSent(instance, endpoint, body);
    if (unsent) {
      return unsent;
    }
    const number = body.number as string;
    if (!number.includes('@') && this.refusedNumbers.has(digitsOf(number))) {
      return envelope(400, [{ jid: jidOf(number), exists: false, number }]);
    }
    instance.cachedNumbers.add(digitsOf(number));
    if (tooManyChoices) {
      return tooManyChoices;
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
    return {
      status: 201,
      body: messageRecord(instance.id, endpoint, body, jidOf(number), messageId),
    };
  }

  /**
   * The gateway downloads a media URL of any type (sendMedia's image, video or document: inside
   * the service's try, `["Error: …"]`) or an audio's (outside it: a plain message) before
   * anything else, whatever the instance's state.
   */
  private mediaFetchFailure(
    endpoint: FakeSendEndpoint,
    body: Record<string, unknown>,
  ): Reply | null {
    const url =
      endpoint === 'sendMedia'
        ? body.media
        : endpoint === 'sendWhatsAppAudio'
          ? body.audio
          : undefined;
    if (typeof url !== 'string' || !isURL(url)) {
      return null;
    }
    const { host, hostname, port, protocol } = new URL(url);
    const failure =
      this.unreachableMediaHosts.get(host) ?? this.unreachableMediaHosts.get(hostname);
    if (!failure) {
      return null;
    }
    const cause =
      failure === 'EAI_AGAIN'
        ? `getaddrinfo EAI_AGAIN ${hostname}`
        : `connect ECONNREFUSED ${hostname}:${port || (protocol === 'https:' ? 443 : 80)}`;
    return endpoint === 'sendMedia' ? envelope(500, [`Error: ${cause}`]) : envelope(500, cause);
  }

  /**
   * `GET /instance/fetchInstances[?instanceName=]`: the global key lists every instance, an
   * instance's token only its own (auth.guard.ts, instance.controller.ts).
   */
  private fetchInstances(request: FakeRequest): Reply {
    const apikey = request.headers.apikey;
    const wanted = request.query.instanceName;
    const global = this.options.globalApiKey !== undefined && apikey === this.options.globalApiKey;
    const rows = [...this.instances].filter(
      ([name, instance]) =>
        (global || instance.apiKey === apikey) && (wanted === undefined || wanted === name),
    );
    if (!global && rows.length === 0) {
      return envelope(401, 'Unauthorized');
    }
    if (wanted !== undefined && rows.length === 0) {
      return envelope(404, [`Instance "${wanted}" not found`]);
    }
    return { status: 200, body: rows.map(([name, instance]) => instanceRow(name, instance)) };
  }

  /**
   * `POST /chat/findMessages` (channel.service.ts fetchMessages): `where.key` fields match
   * exactly (every stored message is the instance's own, and a falsy `fromMe` filters
   * nothing), `messageTimestamp {gte, lte}` (dates) bounds the stored Unix seconds when both
   * are given; newest first, in pages of `offset` (default 50).
   */
  private findMessages(name: string, body: unknown): Reply {
    const filter = where(body);
    const key = (filter.key ?? {}) as Record<string, unknown>;
    if (key.remoteJid === '') {
      return schemaError('The property cannot be empty');
    }
    const range = (filter.messageTimestamp ?? {}) as { gte?: unknown; lte?: unknown };
    const gte = typeof range.gte === 'string' ? Date.parse(range.gte) / 1000 : NaN;
    const lte = typeof range.lte === 'string' ? Date.parse(range.lte) / 1000 : NaN;
    const instanceId = this.instance(name).id;
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
        id: this.rowIdOf(sent),
        key: { remoteJid: jid, fromMe: true, id: sent.messageId },
        pushName: 'Você',
        messageType: messageTypeOf(sent.endpoint, sent.body),
        message: {},
        messageTimestamp: seconds,
        instanceId,
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

  /** Sent messages may be seeded straight into `sent`: their row id is made when needed. */
  private rowIdOf(sent: FakeSentMessage): string {
    const known = this.rowIds.get(sent);
    if (known) {
      return known;
    }
    const made = cuid();
    this.rowIds.set(sent, made);
    return made;
  }

  private notifyWaiters(): void {
    const ready = this.waiters.filter((w) => this.sent.length >= w.count);
    this.waiters = this.waiters.filter((w) => this.sent.length < w.count);
    for (const waiter of ready) {
      waiter.resolve([...this.sent]);
    }
  }
}

/** `GET /` of Evolution API v2.3.6 (recorded). */
const WELCOME = {
  status: 200,
  message: 'Welcome to the Evolution API, it is working!',
  version: '2.3.6',
  clientName: 'evolution_exchange',
  documentation: 'https://doc.evolution-api.com',
  whatsappWebVersion: '2.3000.1027934701',
};

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
    return schemaError('text is not of a type(s) string');
  }
  return body.text.trim() === '' ? envelope(400, ['Text is required']) : null;
}

/**
 * The send controller's media checks: a URL passes class-validator's `isURL`, anything else
 * must pass `isBase64` as it is (no whitespace, standard alphabet, padded); a base64 document
 * needs its file name.
 */
function validateMedia(body: Record<string, unknown>): Reply | null {
  if (body.mediatype === undefined) {
    return schemaError('instance requires property "mediatype"');
  }
  if (typeof body.mediatype !== 'string' || !MEDIA_TYPES.includes(body.mediatype)) {
    return schemaError(`mediatype is not one of enum values: ${MEDIA_TYPES.join(',')}`);
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

/** pollMessageSchema, in jsonschema's words (one message: the real one lists every failure). */
function validatePoll(body: Record<string, unknown>): Reply | null {
  for (const required of ['name', 'selectableCount', 'values']) {
    if (body[required] === undefined) {
      return schemaError(`instance requires property "${required}"`);
    }
  }
  const { name, selectableCount, values } = body;
  if (typeof name !== 'string') {
    return schemaError('name is not of a type(s) string');
  }
  if (typeof selectableCount !== 'number' || !Number.isInteger(selectableCount)) {
    return schemaError('selectableCount is not of a type(s) integer');
  }
  if (selectableCount < 0 || selectableCount > 10) {
    return schemaError(
      selectableCount < 0
        ? 'selectableCount must be greater than or equal to 0'
        : 'selectableCount must be less than or equal to 10',
    );
  }
  if (!Array.isArray(values)) {
    return schemaError('values is not of a type(s) array');
  }
  if (values.length < 2 || values.length > 10) {
    return schemaError(
      values.length < 2
        ? 'values does not meet minimum length of 2'
        : 'values does not meet maximum length of 10',
    );
  }
  const notText = values.findIndex((v) => typeof v !== 'string');
  if (notText >= 0) {
    return schemaError(`values[${notText}] is not of a type(s) string`);
  }
  if (new Set(values).size !== values.length) {
    return schemaError('values contains duplicate item');
  }
  return null;
}

/** Baileys checks a poll's choices against its values when it builds the message. */
function pollChoicesError(endpoint: FakeSendEndpoint, body: Record<string, unknown>): Reply | null {
  const values = body.values as unknown[];
  return endpoint === 'sendPoll' && (body.selectableCount as number) > values.length
    ? envelope(400, [`Error: poll.selectableCount in poll should be >= 0 and <= ${values.length}`])
    : null;
}

/**
 * How a send fails on an instance that is not open, step by step as the gateway runs it
 * (recorded, Evolution API v2.3.6): a not-loaded instance has no controller method; a media
 * upload needs the socket; the is-on-WhatsApp lookup of an uncached number runs outside the
 * service's try (a plain message, 500); typing (`delay`), then the send itself, inside it
 * (`["…"]`, 400). null when the instance is open.
 */
function notSent(
  instance: FakeInstance,
  endpoint: FakeSendEndpoint,
  body: Record<string, unknown>,
): Reply | null {
  const { state } = instance;
  if (state === 'open') {
    return null;
  }
  if (state === null) {
    return envelope(500, undefinedRead(CONTROLLER_METHODS[endpoint]));
  }
  const socketless = hasNoSocket(state);
  if (endpoint === 'sendMedia') {
    return envelope(500, [
      socketless ? `TypeError: ${undefinedRead('waUploadToServer')}` : 'Error: Connection Closed',
    ]);
  }
  if (!instance.cachedNumbers.has(digitsOf(body.number as string))) {
    return envelope(500, socketless ? undefinedRead('onWhatsApp') : 'Connection Closed');
  }
  if (typeof body.delay === 'number' && body.delay > 0) {
    return envelope(400, [
      socketless ? `TypeError: ${undefinedRead('presenceSubscribe')}` : 'Error: Connection Closed',
    ]);
  }
  if (socketless || state === 'never-paired') {
    // No socket: `client.sendMessage`; a socket never paired: `client.user.id`.
    const property = socketless ? 'sendMessage' : 'id';
    return envelope(400, [`TypeError: ${undefinedRead(property)}`]);
  }
  return pollChoicesError(endpoint, body) ?? envelope(400, ['Error: Connection Closed']);
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
  instanceId: string,
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
    instanceId,
    source: 'web',
  };
}

/**
 * `data` of the `messages.upsert` Evolution API v2.3.6 posts for a person's message
 * (whatsapp.baileys.service.ts at 3454bec, `prepareMessage`, lines 4486–4538): `{key,
 * pushName, status, message, contextInfo, messageType, messageTimestamp, instanceId, source}`,
 * with `key` as Baileys made it, `status` DELIVERY_ACK (a received message has none, line 4509),
 * `contextInfo` the content's own (none for these kinds, so absent) and `source` from the id
 * (`getDevice`, line 4505). No `senderPn`: Baileys 7 replaced it with `remoteJidAlt`.
 */
function inboundRecord(
  instanceId: string,
  id: string,
  input: FakeInboundMessage,
  webhookBase64: boolean,
): Record<string, unknown> {
  const { message, messageType } = inboundContent(input, webhookBase64);
  return {
    key: inboundKey(input, id),
    // `notify`, else (lines 4492–4496) the participant, which a one-to-one chat has not: null.
    pushName: input.pushName === undefined ? 'Maria Souza' : input.pushName || null,
    status: 'DELIVERY_ACK',
    message,
    messageType,
    messageTimestamp: Math.floor((input.dateTime ?? new Date()).getTime() / 1000),
    instanceId,
    source: 'android',
  };
}

/**
 * Baileys 7.0.0-rc.6's key of a one-to-one message (decode-wa-message.ts decodeMessageNode,
 * lines 196–205, and extractAddressingContext, lines 87–116): `{remoteJid, remoteJidAlt,
 * fromMe, id, participant, participantAlt, addressingMode}`; `participant` and
 * `participantAlt` are for groups, `remoteJidAlt` is the other JID when WhatsApp gave it
 * (`sender_pn` of a LID-addressed message, `sender_lid` of a number-addressed one).
 */
function inboundKey(input: FakeInboundMessage, id: string): Record<string, unknown> {
  const number = jidOf(input.from);
  if (!input.lid) {
    return { remoteJid: number, fromMe: false, id, addressingMode: 'pn' };
  }
  const lid = input.lid.includes('@') ? input.lid : `${digitsOf(input.lid)}@lid`;
  const byLid = (input.addressing ?? 'lid') === 'lid';
  return {
    remoteJid: byLid ? lid : number,
    remoteJidAlt: byLid ? number : lid,
    fromMe: false,
    id,
    addressingMode: byLid ? 'lid' : 'pn',
  };
}

/**
 * A phone's `messageContextInfo`, which follows the content (proto field 35). Its byte and
 * 64-bit fields (device list hashes and timestamps, messageSecret) are left out: their JSON
 * form depends on the protobuf runtime and nothing reads them.
 */
const MESSAGE_CONTEXT_INFO = { deviceListMetadataVersion: 2 };
/** The start of a JPEG: what a `webhookBase64` webhook gets in `message.base64` here. */
const IMAGE_BASE64 = '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAEBAQEBAQEBAQEBAQEBAQE=';

function inboundContent(
  input: FakeInboundMessage,
  webhookBase64: boolean,
): { message: Record<string, unknown>; messageType: string } {
  const kind = input.kind ?? 'conversation';
  switch (kind) {
    case 'conversation':
      return {
        message: { conversation: textOf(input), messageContextInfo: MESSAGE_CONTEXT_INFO },
        messageType: 'conversation',
      };
    case 'extendedText':
      // prepareMessage moves the text to `conversation` and deletes `extendedTextMessage`
      // (lines 4512–4516): v2.3.6 never posts an extendedTextMessage.
      return {
        message: { messageContextInfo: MESSAGE_CONTEXT_INFO, conversation: textOf(input) },
        messageType: 'conversation',
      };
    case 'image':
      return {
        message: {
          imageMessage: imageMessage(input.caption),
          messageContextInfo: MESSAGE_CONTEXT_INFO,
          // Media downloaded for a webhook set with base64 (lines 1318–1346).
          ...(webhookBase64 ? { base64: IMAGE_BASE64 } : {}),
        },
        messageType: 'imageMessage',
      };
  }
}

function textOf(input: FakeInboundMessage): string {
  if (input.text === undefined) {
    throw new Error(`FakeEvolutionApi: a ${input.kind ?? 'conversation'} message needs its text`);
  }
  return input.text;
}

/** An image as WhatsApp sends it, without its byte and 64-bit fields (keys, hashes, sizes). */
function imageMessage(caption: string | undefined): Record<string, unknown> {
  const path = `/v/t62.7118-24/${randomBytes(8).toString('hex')}.enc`;
  return {
    url: `https://mmg.whatsapp.net${path}?mms3=true`,
    mimetype: 'image/jpeg',
    ...(caption === undefined ? {} : { caption }),
    height: 1280,
    width: 960,
    directPath: path,
  };
}

function connectionState(name: string, instance: FakeInstance): Reply {
  return {
    status: 200,
    body: {
      instance:
        instance.state === null
          ? { instanceName: name }
          : { instanceName: name, state: reportedState(instance.state) },
    },
  };
}

/** The `state` the gateway reports: an instance that never opened says `close`. */
function reportedState(state: FakeInstanceState): 'open' | 'connecting' | 'close' {
  return state === 'no-socket' || state === 'never-paired' ? 'close' : state;
}

/** `Instance` row of fetchInstances, without the relations the service never reads. */
function instanceRow(name: string, instance: FakeInstance): Record<string, unknown> {
  return {
    id: instance.id,
    name,
    connectionStatus: instance.state === null ? 'close' : reportedState(instance.state),
    ownerJid: null,
    profileName: null,
    profilePicUrl: null,
    integration: 'WHATSAPP-BAILEYS',
    number: null,
    businessId: null,
    token: instance.apiKey,
    clientName: 'evolution_exchange',
    createdAt: instance.createdAt.toISOString(),
    updatedAt: instance.createdAt.toISOString(),
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

/**
 * Evolution API v2.3.6 `webhookSchema` and `WebhookController.set`: `webhook {enabled, url}`
 * required, events by name; disabled stores no events, enabled with `[]` stores all of them,
 * enabled without `events` fails reading its length. Answers the stored row.
 */
function setWebhook(instance: FakeInstance, body: unknown): Reply {
  const webhook = (body as { webhook?: unknown } | undefined)?.webhook as
    Record<string, unknown> | undefined;
  if (!webhook || typeof webhook !== 'object') {
    return schemaError('instance requires property "webhook"');
  }
  for (const required of ['enabled', 'url']) {
    if (webhook[required] === undefined) {
      return schemaError(`webhook requires property "${required}"`);
    }
  }
  if (typeof webhook.enabled !== 'boolean' || typeof webhook.url !== 'string') {
    return schemaError(
      typeof webhook.url === 'string'
        ? 'webhook.enabled is not of a type(s) boolean'
        : 'webhook.url is not of a type(s) string',
    );
  }
  if (webhook.url === '') {
    return schemaError('The "url" cannot be empty');
  }
  const events = webhook.events;
  if (events !== undefined && !Array.isArray(events)) {
    return schemaError('webhook.events is not of a type(s) array');
  }
  const unknown = (events ?? []).findIndex((e) => !WEBHOOK_EVENTS.includes(e as string));
  if (unknown >= 0) {
    return schemaError(
      `webhook.events[${unknown}] is not one of enum values: ${WEBHOOK_EVENTS.join(',')}`,
    );
  }
  if (webhook.enabled && events === undefined) {
    return envelope(500, undefinedRead('length'));
  }
  storeWebhook(instance, {
    enabled: webhook.enabled,
    url: webhook.url,
    headers: (webhook.headers ?? {}) as Record<string, string>,
    events: !webhook.enabled ? [] : events?.length ? (events as string[]) : WEBHOOK_EVENTS,
    byEvents: webhook.byEvents === true,
    base64: webhook.base64 === true,
  });
  return { status: 201, body: webhookRow(instance) };
}

/** Upserts the instance's one webhook row: its id and createdAt stay, updatedAt moves. */
function storeWebhook(instance: FakeInstance, webhook: FakeWebhook | null): void {
  instance.webhook = webhook;
  if (!webhook) {
    instance.webhookRow = null;
    return;
  }
  const now = new Date();
  instance.webhookRow = instance.webhookRow
    ? { ...instance.webhookRow, updatedAt: now }
    : { id: `cfake${randomBytes(10).toString('hex')}`, createdAt: now, updatedAt: now };
}

/** `GET /webhook/find`: the stored row, or `null` before any set. */
function findWebhook(instance: FakeInstance): Reply {
  return { status: 200, body: webhookRow(instance) };
}

function webhookRow(instance: FakeInstance): Record<string, unknown> | null {
  const { webhook, webhookRow: row } = instance;
  if (!webhook || !row) {
    return null;
  }
  return {
    id: row.id,
    url: webhook.url,
    headers: webhook.headers,
    enabled: webhook.enabled,
    events: webhook.events,
    webhookByEvents: webhook.byEvents,
    webhookBase64: webhook.base64,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    instanceId: instance.id,
  };
}

/** Whether the gateway posts this event to the webhook (`WebhookController.emit`). */
function subscribes(webhook: FakeWebhook, event: string): boolean {
  return (
    webhook.enabled &&
    /^https?:\/\//.test(webhook.url) &&
    webhook.events.includes(event.toUpperCase().replace(/\./g, '_'))
  );
}

/**
 * `POST /chat/whatsappNumbers`: cached numbers answer `exists:true` in any state; the others
 * need WhatsApp, so a closed socket answers its serialized Boom (428) and no socket an empty
 * object, both with 400 and without the error envelope (chat.router.ts).
 */
function whatsappNumbers(
  instance: FakeInstance,
  body: unknown,
  notOnWhatsApp: ReadonlySet<string>,
): Reply {
  const numbers = (body as { numbers?: unknown } | undefined)?.numbers;
  const refused = (text: string): Reply => ({
    status: 400,
    body: { status: 400, error: 'Bad Request', message: [[text]] },
  });
  if (!Array.isArray(numbers)) {
    return refused(
      numbers === undefined
        ? 'instance requires property "numbers"'
        : 'numbers is not of a type(s) array',
    );
  }
  if (numbers.length === 0) {
    return refused('numbers does not meet minimum length of 1');
  }
  const digits = numbers.map((n) => digitsOf(String(n)));
  if (instance.state !== 'open' && digits.some((d) => !instance.cachedNumbers.has(d))) {
    return { status: 400, body: hasNoSocket(instance.state) ? {} : CLOSED_BOOM };
  }
  return {
    status: 200,
    body: numbers.map((number, i) => {
      const exists = instance.cachedNumbers.has(digits[i]) || !notOnWhatsApp.has(digits[i]);
      if (exists) {
        instance.cachedNumbers.add(digits[i]);
      }
      return { jid: jidOf(String(number)), exists, number };
    }),
  };
}
