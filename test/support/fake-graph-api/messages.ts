import { randomBytes } from 'node:crypto';
import type { AccountsState, FakeNumber, MetaTemplate } from './accounts';
import { expiredToken, unknownObject } from './accounts';
import { FakeGraphApiServer, GraphAnswer, GraphRequest, graphError } from './server';

/** A message the fake accepted, with the id it answered. */
export interface FakeSentMessage {
  phoneNumberId: string;
  to: string;
  type: string;
  /** The request body as sent. */
  body: Record<string, unknown>;
  wamid: string;
  callbackData: string | null;
  at: Date;
}

/**
 * What the next send meets, in order: an answer instead of Meta's (an error), a delay before
 * Meta's answer, or a hang: the request is read whole and never answered (the client's
 * timeout after the request was written).
 */
export type SendScriptStep =
  { kind: 'answer'; answer: GraphAnswer } | { kind: 'delay'; ms: number } | { kind: 'hang' };

export interface MessagesState extends AccountsState {
  sent: FakeSentMessage[];
  /**
   * When set, an accepted message is kept only as its arrival time (epoch ms, sub-ms
   * precision) under its phone number id, not in `sent`: see FakeGraphApi.recordArrivalsOnly.
   */
  arrivals: Map<string, number[]> | null;
  sendScript: SendScriptStep[];
  /** Resolves a hung request (at stop); the fake keeps them to end them. */
  hung: Array<() => void>;
}

const MEDIA_TYPES = ['image', 'video', 'document', 'audio', 'sticker'];
const TYPES = ['text', 'template', ...MEDIA_TYPES];

function invalid(message: string, code = 100): GraphAnswer {
  return graphError(400, code, message, { type: 'OAuthException', details: message });
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function mediaProblem(object: Record<string, unknown>): GraphAnswer | null {
  const link = object.link;
  if (typeof link !== 'string' && typeof object.id !== 'string') {
    return invalid('(#100) Param link or id is required for media messages', 131008);
  }
  if (typeof link === 'string' && !/^https?:\/\//.test(link)) {
    return invalid(`(#131009) Parameter value is not valid: link ${link}`, 131009);
  }
  return null;
}

function textProblem(object: Record<string, unknown>): GraphAnswer | null {
  if (typeof object.body !== 'string' || object.body === '') {
    return invalid('(#100) The parameter text[body] is required.', 131008);
  }
  return object.body.length > 4096
    ? invalid('(#100) Param text[body] must be at most 4096 characters long.')
    : null;
}

function countPlaceholders(text: unknown): number {
  return typeof text === 'string'
    ? new Set(Array.from(text.matchAll(/\{\{\s*(\w+)\s*\}\}/g), (m) => m[1])).size
    : 0;
}

function componentOf(list: unknown, type: string): Record<string, unknown> | null {
  const found = Array.isArray(list)
    ? list.find((item) => String(record(item)?.type).toUpperCase() === type)
    : undefined;
  return record(found);
}

/** Meta's checks of a template message against the template it names. */
function templateProblem(
  object: Record<string, unknown>,
  templates: MetaTemplate[],
): GraphAnswer | null {
  const language = record(object.language)?.code;
  if (typeof object.name !== 'string' || typeof language !== 'string') {
    return invalid('(#100) The parameter template[name] and template[language][code] are required');
  }
  const template = templates.find((t) => t.name === object.name && t.language === language);
  if (!template) {
    return invalid(`(#132001) Template name does not exist in the translation`, 132001);
  }
  if (template.status === 'PAUSED') {
    return invalid(`(#132015) Template is paused due to low quality`, 132015);
  }
  if (template.status !== 'APPROVED') {
    return invalid(`(#132016) Template has been disabled`, 132016);
  }
  const body = componentOf(object.components, 'BODY');
  const given = Array.isArray(body?.parameters) ? body.parameters.length : 0;
  const expected = countPlaceholders(componentOf(template.components, 'BODY')?.text);
  if (given !== expected) {
    return invalid(
      `(#132000) Number of parameters does not match the expected number of params: body: number of localizable_params (${given}) does not match the expected number of params (${expected})`,
      132000,
    );
  }
  const headerFormat = componentOf(template.components, 'HEADER')?.format;
  const format = typeof headerFormat === 'string' ? headerFormat.toLowerCase() : '';
  if (['image', 'video', 'document'].includes(format)) {
    const header = componentOf(object.components, 'HEADER');
    const parameter = Array.isArray(header?.parameters) ? record(header.parameters[0]) : null;
    if (parameter?.type !== format || !record(parameter[format])) {
      return invalid(
        `(#132012) Parameter format does not match format in the created template: header: Format mismatch, expected ${format.toUpperCase()}`,
        132012,
      );
    }
  }
  return null;
}

/** What Meta refuses in a send's body, or null when it takes it. */
function bodyProblem(body: Record<string, unknown>, templates: MetaTemplate[]): GraphAnswer | null {
  if (body.messaging_product !== 'whatsapp') {
    return invalid('(#100) The parameter messaging_product is required.');
  }
  if (typeof body.to !== 'string' || !/^\+?\d{8,15}$/.test(body.to)) {
    return invalid('(#100) The parameter to is required.');
  }
  const type = typeof body.type === 'string' ? body.type : 'text';
  const object = record(body[type]);
  if (!TYPES.includes(type) || !object) {
    return invalid(`(#131051) Unsupported message type`, 131051);
  }
  const callback = body.biz_opaque_callback_data;
  if (callback !== undefined && (typeof callback !== 'string' || callback.length > 512)) {
    return invalid('(#100) Param biz_opaque_callback_data must be at most 512 characters long.');
  }
  if (type === 'text') {
    return textProblem(object);
  }
  return type === 'template' ? templateProblem(object, templates) : mediaProblem(object);
}

function wamid(): string {
  return `wamid.${randomBytes(24).toString('base64url')}`;
}

function accept(
  state: MessagesState,
  number: FakeNumber,
  body: Record<string, unknown>,
): GraphAnswer {
  const to = String(body.to).replace(/^\+/, '');
  const id = wamid();
  const type = typeof body.type === 'string' ? body.type : 'text';
  if (state.arrivals) {
    noteArrival(state.arrivals, number.phoneNumberId);
  } else {
    keepSent(state, { phoneNumberId: number.phoneNumberId, to, type, body, wamid: id });
  }
  return {
    status: 200,
    body: {
      messaging_product: 'whatsapp',
      contacts: [{ input: String(body.to), wa_id: to }],
      messages: [{ id, ...(type === 'template' ? { message_status: 'accepted' } : {}) }],
    },
  };
}

function noteArrival(arrivals: Map<string, number[]>, phoneNumberId: string): void {
  const times = arrivals.get(phoneNumberId) ?? [];
  times.push(performance.timeOrigin + performance.now());
  arrivals.set(phoneNumberId, times);
}

function keepSent(
  state: MessagesState,
  message: Omit<FakeSentMessage, 'callbackData' | 'at'>,
): void {
  const callbackData = message.body.biz_opaque_callback_data;
  state.sent.push({
    ...message,
    callbackData: typeof callbackData === 'string' ? callbackData : null,
    at: new Date(),
  });
}

async function scripted(state: MessagesState): Promise<GraphAnswer | null> {
  const step = state.sendScript.shift();
  if (!step) {
    return null;
  }
  switch (step.kind) {
    case 'answer':
      return step.answer;
    case 'delay':
      await new Promise((resolve) => setTimeout(resolve, step.ms));
      return null;
    case 'hang':
      await new Promise<void>((resolve) => state.hung.push(resolve));
      return graphError(500, 1, 'An unknown error occurred');
  }
}

function handleSend(state: MessagesState, request: GraphRequest, id: string) {
  const number = state.numbers.get(id);
  if (!number) {
    return request.token ? unknownObject(id, 'post') : expiredToken();
  }
  if (request.token !== number.accessToken) {
    return expiredToken();
  }
  const body = record(request.body);
  if (!body) {
    return invalid('(#100) The parameter messaging_product is required.');
  }
  const problem = bodyProblem(body, state.templates.get(number.businessAccountId) ?? []);
  return problem ?? accept(state, number, body);
}

/** POST /{version}/{phone-number-id}/messages: the script first, then Meta's own checks. */
export function registerMessageRoutes(server: FakeGraphApiServer, state: MessagesState): void {
  server.route('POST', '/:version/:phoneNumberId/messages', async (request, { phoneNumberId }) => {
    return (await scripted(state)) ?? handleSend(state, request, phoneNumberId);
  });
}
