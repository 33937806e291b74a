import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  Logger,
  MethodNotAllowedException,
  NotFoundException,
} from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import { QueryFailedError } from 'typeorm';
import {
  DomainError,
  ErrorKind,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
  ValidationFailedError,
} from '../errors/domain-error';
import { mapError, statusOfKind } from './all-exceptions.filter';

/** A real Logger that keeps what it was asked to write, so the tests can read the error id. */
class RecordingLogger extends Logger {
  readonly errors: unknown[][] = [];

  override error(message: unknown, ...rest: unknown[]): void {
    this.errors.push([message, ...rest]);
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe('mapError', () => {
  let logger: RecordingLogger;

  beforeEach(() => {
    logger = new RecordingLogger('spec');
  });

  it.each<[ErrorKind, number]>([
    ['invalid', 400],
    ['unauthorized', 401],
    ['forbidden', 403],
    ['not_found', 404],
    ['conflict', 409],
    ['payload_too_large', 413],
    ['rate_limited', 429],
    ['unavailable', 503],
  ])('maps a domain error of kind %s to %d with its own message', (kind, status) => {
    expect(statusOfKind(kind)).toBe(status);
    const mapped = mapError(new DomainError('X.Y', kind, 'Mensagem do domínio'), logger);
    expect(mapped).toEqual({ status, message: 'Mensagem do domínio' });
    expect(logger.errors).toHaveLength(0);
  });

  it('maps the domain error subclasses by their kind', () => {
    expect(mapError(new NotFoundError('A.NOT_FOUND', 'Não encontrada'), logger).status).toBe(404);
    expect(mapError(new ForbiddenError('A.FORBIDDEN', 'Proibido'), logger).status).toBe(403);
    expect(mapError(new InvalidInputError('A.INVALID', 'Inválido'), logger).status).toBe(400);
    expect(mapError(new UnauthorizedError('A.UNAUTHORIZED', 'Sem token'), logger).status).toBe(401);
  });

  it('adds Retry-After to a rate-limited error', () => {
    const mapped = mapError(new RateLimitedError('RATE_LIMIT.EXCEEDED', 'Devagar', 42), logger);
    expect(mapped).toEqual({ status: 429, message: 'Devagar', headers: { 'Retry-After': '42' } });
  });

  it('renders validation failures as {field=texto, field=texto}', () => {
    const error = new ValidationFailedError([
      ['email', 'deve ser um e-mail válido'],
      ['contacts[0].phoneNumber', 'é obrigatório'],
    ]);
    expect(mapError(error, logger)).toEqual({
      status: 400,
      message: '{email=deve ser um e-mail válido, contacts[0].phoneNumber=é obrigatório}',
    });
  });

  it.each<[HttpException, number, string]>([
    [new NotFoundException(), 404, 'Recurso não encontrado'],
    [new ForbiddenException(), 403, 'Sem permissão para este recurso'],
    [new MethodNotAllowedException(), 405, 'Método não permitido'],
    [new ThrottlerException(), 429, 'Limite de requisições excedido; tente novamente mais tarde'],
    [new BadRequestException('English text from a library'), 400, 'Requisição inválida'],
  ])(
    'lets Nest HTTP exceptions through with their status and a Portuguese message (%#)',
    (error, status, message) => {
      expect(mapError(error, logger)).toEqual({ status, message });
    },
  );

  it('keeps the Portuguese message an HTTP exception carries', () => {
    expect(mapError(new HttpException({ portuguese: 'Arquivo vazio' }, 400), logger)).toEqual({
      status: 400,
      message: 'Arquivo vazio',
    });
  });

  it.each([
    [{ type: 'entity.parse.failed', status: 400 }, 400, 'JSON malformado no corpo da requisição'],
    [{ type: 'entity.too.large', status: 413 }, 413, 'Corpo da requisição grande demais'],
    [{ type: 'encoding.unsupported', status: 415 }, 415, 'Tipo de conteúdo não suportado'],
    [{ type: 'charset.unsupported', status: 415 }, 415, 'Tipo de conteúdo não suportado'],
    [{ type: 'request.aborted', status: 400 }, 400, 'Requisição inválida'],
    [{ type: 'request.size.invalid', status: 400 }, 400, 'Requisição inválida'],
  ])('maps the body-parser error %j to %d', (error, status, message) => {
    expect(mapError(Object.assign(new Error('raw parser text'), error), logger)).toEqual({
      status,
      message,
    });
  });

  it('turns a unique violation into 409 without showing the SQL', () => {
    const error = new QueryFailedError('INSERT INTO companies (email) VALUES ($1)', ['a@b.com'], {
      code: '23505',
      message: 'duplicate key value violates unique constraint "companies_email_lower_key"',
    } as unknown as Error);
    const mapped = mapError(error, logger);
    expect(mapped).toEqual({
      status: 409,
      message: 'Registro duplicado: já existe um recurso com estes dados',
    });
    expect(mapped.message).not.toMatch(/INSERT|companies/);
  });

  it.each<[string, unknown]>([
    ['an Error', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a thrown string', 'something odd'],
    ['a thrown object', { weird: true }],
    ['undefined', undefined],
  ])(
    'answers %s with 500 whose message carries only an error id, and logs the error under that id',
    (_label, thrown) => {
      const mapped = mapError(thrown, logger);
      expect(mapped.status).toBe(500);
      expect(mapped.headers).toBeUndefined();
      const id = UUID.exec(mapped.message)?.[0];
      expect(mapped.message).toBe(`Erro interno do servidor (id do erro: ${id})`);
      expect(logger.errors).toHaveLength(1);
      const [logged] = logger.errors[0] as [{ errorId: string; err: unknown }];
      expect(logged.errorId).toBe(id);
      expect(logged.err).toBe(thrown);
    },
  );

  it('logs a failed query by its SQLSTATE, constraint and message, never its values', () => {
    const phone = '5511988887777';
    const error = new QueryFailedError(
      'INSERT INTO gateway_events (payload) VALUES ($1)',
      [`{"phone":"${phone}","text":"segredo"}`],
      Object.assign(new Error(`invalid input syntax for type integer: "${phone}"`), {
        code: '22P02',
        detail: `Key (phone)=(${phone}) is odd`,
        constraint: 'gateway_events_pkey',
      }),
    );
    const mapped = mapError(error, logger);
    expect(mapped.status).toBe(500);
    const [logged] = logger.errors[0] as [{ errorId: string; err: unknown }];
    expect(mapped.message).toContain(logged.errorId);
    expect(logged.err).toEqual({
      type: 'QueryFailedError',
      code: '22P02',
      constraint: 'gateway_events_pkey',
      message: 'invalid input syntax for type integer: "…"',
      stack: expect.stringContaining('invalid input syntax for type integer: "…"'),
    });
    expect(JSON.stringify(logger.errors)).not.toMatch(/5511988887777|segredo|INSERT/);
  });

  it('gives every unexpected error its own id', () => {
    const first = mapError(new Error('a'), logger).message;
    const second = mapError(new Error('a'), logger).message;
    expect(first).not.toBe(second);
  });
});
