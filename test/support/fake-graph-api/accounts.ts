import { FakeGraphApiServer, GraphAnswer, GraphRequest, graphError } from './server';

/** A number of the fake, as `FakeGraphApi.addNumber` takes it. */
export interface FakeNumber {
  phoneNumberId: string;
  businessAccountId: string;
  accessToken: string;
  displayPhoneNumber: string;
  verifiedName: string;
  /** GREEN, YELLOW, RED or UNKNOWN. */
  qualityRating: string;
  /** messaging_limit_tier, e.g. TIER_1K. */
  tier: string;
  /** Signs the webhooks the fake sends back (webhooks.ts). */
  appSecret?: string;
}

/** A template in Meta's shape (GET /{waba-id}/message_templates). */
export interface MetaTemplate {
  id?: string;
  name: string;
  language: string;
  status: string;
  category: string;
  parameter_format?: 'POSITIONAL' | 'NAMED';
  components: Array<Record<string, unknown>>;
}

/** What the account routes read: the fake's numbers and each business account's templates. */
export interface AccountsState {
  numbers: Map<string, FakeNumber>;
  templates: Map<string, MetaTemplate[]>;
}

/** Meta's answer to a token it does not accept (Graph API error 190). */
export function expiredToken(): GraphAnswer {
  return graphError(
    401,
    190,
    'Error validating access token: Session has expired on Friday, 27-Nov-26 06:00:00 PST.',
    { subcode: 463 },
  );
}

/** Meta's answer for an id it does not know, or that the token may not see (100 / 33). */
export function unknownObject(id: string, method = 'get'): GraphAnswer {
  return graphError(
    400,
    100,
    `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    { type: 'GraphMethodException', subcode: 33 },
  );
}

/** The token must be one of the number's (or of a number of the business account). */
function tokenRefusal(request: GraphRequest, tokens: string[]): GraphAnswer | null {
  return request.token && tokens.includes(request.token) ? null : expiredToken();
}

function numberNode(number: FakeNumber, fields: string | null): Record<string, unknown> {
  const all: Record<string, unknown> = {
    id: number.phoneNumberId,
    display_phone_number: number.displayPhoneNumber,
    verified_name: number.verifiedName,
    quality_rating: number.qualityRating,
    messaging_limit_tier: number.tier,
  };
  const wanted = fields ? fields.split(',').map((field) => field.trim()) : ['id'];
  return Object.fromEntries(
    Object.entries(all).filter(([key]) => key === 'id' || wanted.includes(key)),
  );
}

/** Cursors are the index of the next entry, base64: opaque to the client, as Meta's are. */
function cursorOf(index: number): string {
  return Buffer.from(`cursor:${index}`).toString('base64');
}

function indexOf(cursor: string | null): number {
  if (!cursor) {
    return 0;
  }
  const match = /^cursor:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  return match ? Number(match[1]) : 0;
}

/** At most `pageSize` a page, fewer when the request's `limit` asks so. */
function templatesPage(
  request: GraphRequest,
  templates: MetaTemplate[],
  pageSize: number,
): GraphAnswer {
  const asked = Number(request.query.get('limit') ?? pageSize) || pageSize;
  const limit = Math.min(asked, pageSize, 100);
  const start = indexOf(request.query.get('after'));
  const data = templates.slice(start, start + limit);
  const end = start + data.length;
  const paging: Record<string, unknown> = {
    cursors: { before: cursorOf(start), after: cursorOf(end) },
  };
  if (end < templates.length) {
    paging.next = `https://graph.facebook.com${request.path}?limit=${limit}&after=${cursorOf(end)}`;
  }
  return { status: 200, body: { data, paging } };
}

/**
 * GET /{version}/{phone-number-id}?fields=… and GET /{version}/{waba-id}/message_templates
 * (at most `pageSize` templates a page, so a test can make the client follow the paging).
 */
export function registerAccountRoutes(
  server: FakeGraphApiServer,
  state: AccountsState,
  pageSize: () => number,
): void {
  server.route('GET', '/:version/:id', (request, { id }) => {
    const number = state.numbers.get(id);
    if (!number) {
      return request.token ? unknownObject(id) : expiredToken();
    }
    return (
      tokenRefusal(request, [number.accessToken]) ?? {
        status: 200,
        body: numberNode(number, request.query.get('fields')),
      }
    );
  });
  server.route('GET', '/:version/:wabaId/message_templates', (request, { wabaId }) => {
    const tokens = [...state.numbers.values()]
      .filter((number) => number.businessAccountId === wabaId)
      .map((number) => number.accessToken);
    if (tokens.length === 0) {
      return request.token ? unknownObject(wabaId) : expiredToken();
    }
    const refusal = tokenRefusal(request, tokens);
    if (refusal) {
      return refusal;
    }
    return templatesPage(request, state.templates.get(wabaId) ?? [], pageSize());
  });
}
