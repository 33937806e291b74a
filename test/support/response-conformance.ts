import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';

/**
 * Every response the end-to-end tests receive from an application started by the harness is
 * checked against the OpenAPI description that application serves: its status must be
 * declared for the route, its content type among the declared ones, and a JSON body must
 * validate against the declared schema. Mismatches are collected here; the e2e setup file
 * (response-conformance.setup.ts) fails the spec file that produced any.
 */

export interface ResponseMismatch {
  method: string;
  route: string;
  status: number;
  message: string;
}

/** One response as it went out on the wire. */
export interface Exchange {
  method: string;
  url: string;
  status: number;
  contentType: string | undefined;
  /** Null when the body was too large to keep (it is then not validated). */
  body: Buffer | null;
}

/** Past this, a body is not kept: only file downloads are that large, and they are not JSON. */
const MAX_KEPT_BODY_BYTES = 4 * 1024 * 1024;

const recorded: ResponseMismatch[] = [];

/** Every mismatch seen so far in this spec file, and forgets them. */
export function takeMismatches(): ResponseMismatch[] {
  return recorded.splice(0, recorded.length);
}

export function describeMismatches(mismatches: ResponseMismatch[]): string {
  return mismatches.map((m) => `${m.method} ${m.route} -> ${m.status}: ${m.message}`).join('\n');
}

/**
 * Watches every response of the server, from before Express sees the request (so that answers
 * given by the early HTTP pipeline — rate limits, body limits — are checked too). Responses
 * seen before the description is loaded are kept and checked once it is.
 */
export class ResponseRecorder {
  private validator: DescriptionValidator | null = null;
  private pending: Exchange[] = [];

  constructor(server: Server) {
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) =>
      this.watch(request, response),
    );
  }

  async loadDescription(document: Document): Promise<void> {
    this.validator = await DescriptionValidator.for(document);
    for (const exchange of this.pending.splice(0)) {
      this.check(exchange);
    }
  }

  private watch(request: IncomingMessage, response: ServerResponse): void {
    const method = request.method ?? 'GET';
    const url = request.url ?? '/';
    const body = captureBody(response);
    response.once('finish', () => {
      const exchange: Exchange = {
        method,
        url,
        status: response.statusCode,
        contentType: headerText(response.getHeader('content-type')),
        body: body(),
      };
      if (this.validator) {
        this.check(exchange);
      } else {
        this.pending.push(exchange);
      }
    });
  }

  private check(exchange: Exchange): void {
    const mismatch = this.validator?.check(exchange);
    if (mismatch) {
      recorded.push(mismatch);
    }
  }
}

/** Wraps write/end to keep a copy of what is sent; returns a reader of the copy. */
function captureBody(response: ServerResponse): () => Buffer | null {
  const chunks: Buffer[] = [];
  let size = 0;
  const keep = (chunk: unknown, encoding: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') {
      return;
    }
    const buffer = toBuffer(chunk, encoding);
    size += buffer.length;
    if (size <= MAX_KEPT_BODY_BYTES) {
      chunks.push(buffer);
    }
  };
  const write = response.write.bind(response) as (...args: unknown[]) => boolean;
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
  response.write = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return write(...args);
  }) as ServerResponse['write'];
  response.end = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return end(...args);
  }) as ServerResponse['end'];
  return () => (size > MAX_KEPT_BODY_BYTES ? null : Buffer.concat(chunks));
}

function toBuffer(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) {
    return chunk;
  }
  if (chunk instanceof Uint8Array) {
    return Buffer.from(chunk);
  }
  return Buffer.from(
    String(chunk),
    typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
  );
}

function headerText(value: number | string | string[] | undefined): string | undefined {
  if (value === undefined) {
    return undefined;
  }
  return Array.isArray(value) ? value.join(', ') : String(value);
}

interface DeclaredResponse {
  content?: Record<string, { schema?: unknown }>;
}

/** The served description, compiled once per distinct document. */
export class DescriptionValidator {
  private static readonly compiled = new Map<string, Promise<DescriptionValidator>>();

  private constructor(private readonly api: OpenAPIBackend) {}

  static for(document: Document): Promise<DescriptionValidator> {
    const key = JSON.stringify(document);
    let validator = DescriptionValidator.compiled.get(key);
    if (!validator) {
      validator = DescriptionValidator.compile(document);
      DescriptionValidator.compiled.set(key, validator);
    }
    return validator;
  }

  private static async compile(document: Document): Promise<DescriptionValidator> {
    // A deep copy: the library dereferences the document in place.
    const definition = JSON.parse(JSON.stringify(document)) as Document;
    // strict: a document that is not valid OpenAPI, or a dangling $ref, fails the start.
    const api = new OpenAPIBackend({
      definition,
      quick: false,
      validate: true,
      strict: true,
      ajvOpts: { allErrors: true },
    });
    await api.init();
    return new DescriptionValidator(api);
  }

  /** The mismatch between the exchange and the description, or null when it conforms. */
  check(exchange: Exchange): ResponseMismatch | null {
    const [path, query = ''] = exchange.url.split('?', 2);
    if (path.startsWith('/api/docs')) {
      return null; // the description and its viewer describe nothing of their own
    }
    const operation = this.api.matchOperation({
      // HEAD is GET without the body (RFC 9110 §9.3.2): Express answers it from the GET route.
      method: exchange.method === 'HEAD' ? 'get' : exchange.method.toLowerCase(),
      path,
      query,
      headers: {},
    });
    if (!operation) {
      return unknownRoute(exchange, path);
    }
    const route = `${operation.path}`;
    const message = this.checkOperation(operation, exchange);
    return message ? { method: exchange.method, route, status: exchange.status, message } : null;
  }

  private checkOperation(operation: Operation, exchange: Exchange): string | null {
    const responses = (operation.responses ?? {}) as Record<string, DeclaredResponse>;
    const status = String(exchange.status);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => responses[k] !== undefined);
    if (!key) {
      return `status ${status} is not declared (declared: ${Object.keys(responses).join(', ')})`;
    }
    return checkContent(responses[key], exchange, (body) => {
      const result = this.api.validateResponse(body, operation, Number(key) || undefined);
      return result.valid ? null : formatErrors(result.errors);
    });
  }
}

/**
 * A route the description does not know may still be refused (404, or a rate limit or body
 * check that answers before routing); answering it with success means it is undescribed.
 */
function unknownRoute(exchange: Exchange, path: string): ResponseMismatch | null {
  if (exchange.status >= 400) {
    return null;
  }
  return {
    method: exchange.method,
    route: path,
    status: exchange.status,
    message: 'no operation of the description matches this route',
  };
}

function checkContent(
  declared: DeclaredResponse,
  exchange: Exchange,
  validateJson: (body: unknown) => string | null,
): string | null {
  const hasBody = exchange.body === null || exchange.body.length > 0;
  const declaredTypes = Object.keys(declared.content ?? {});
  if (!hasBody || exchange.method === 'HEAD') {
    return declaredTypes.length > 0 && exchange.method !== 'HEAD'
      ? `empty body where ${declaredTypes.join(', ')} is declared`
      : null;
  }
  const actualType = (exchange.contentType ?? '').split(';')[0].trim().toLowerCase();
  if (declaredTypes.length === 0) {
    return `a ${actualType || 'body'} body where no content is declared`;
  }
  if (!declaredTypes.some((type) => mediaTypeMatches(type, actualType))) {
    return `content type ${actualType || '(none)'} where ${declaredTypes.join(', ')} is declared`;
  }
  if (!isJson(actualType) || exchange.body === null) {
    return null; // files, CSV, text: their declared content type is all there is to check
  }
  let body: unknown;
  try {
    body = JSON.parse(exchange.body.toString('utf8'));
  } catch {
    return 'the body is not valid JSON';
  }
  return validateJson(body);
}

/** Parameters (`; version=0.0.4`, `; charset=…`) do not change the media type's essence. */
function mediaTypeMatches(declared: string, actual: string): boolean {
  const [type, subtype] = declared.split(';')[0].trim().toLowerCase().split('/');
  const [actualType, actualSubtype] = actual.split('/');
  return (type === '*' || type === actualType) && (subtype === '*' || subtype === actualSubtype);
}

function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function formatErrors(
  errors: { instancePath?: string; message?: string; params?: unknown }[] | null | undefined,
): string {
  return (errors ?? [])
    .map(
      (error) =>
        `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params ?? {})}`,
    )
    .join('; ');
}
