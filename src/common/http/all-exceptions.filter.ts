import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { QueryFailedError } from 'typeorm';
import { DomainError, ErrorKind, RateLimitedError } from '../errors/domain-error';
import { isUniqueViolation } from '../errors/unique-violation';
import { withoutQuotedValues } from '../logging/typeorm-logger';
import { errorBody } from './error-body';
import { requestIdOf } from './request-state';

const PORTUGUESE_DEFAULTS: Record<number, string> = {
  400: 'Requisição inválida',
  401: 'Token de acesso inválido ou ausente',
  403: 'Sem permissão para este recurso',
  404: 'Recurso não encontrado',
  405: 'Método não permitido',
  409: 'Conflito com o estado atual do recurso',
  413: 'Corpo da requisição grande demais',
  415: 'Tipo de conteúdo não suportado',
  429: 'Limite de requisições excedido; tente novamente mais tarde',
  503: 'Serviço indisponível',
};

/** The HTTP status of each kind of domain error: a new kind does not compile until it has one. */
const STATUS_OF_KIND: Record<ErrorKind, HttpStatus> = {
  invalid: HttpStatus.BAD_REQUEST,
  unauthorized: HttpStatus.UNAUTHORIZED,
  forbidden: HttpStatus.FORBIDDEN,
  not_found: HttpStatus.NOT_FOUND,
  conflict: HttpStatus.CONFLICT,
  unprocessable: HttpStatus.UNPROCESSABLE_ENTITY,
  payload_too_large: HttpStatus.PAYLOAD_TOO_LARGE,
  rate_limited: HttpStatus.TOO_MANY_REQUESTS,
  unavailable: HttpStatus.SERVICE_UNAVAILABLE,
};

export function statusOfKind(kind: ErrorKind): number {
  return STATUS_OF_KIND[kind];
}

interface BodyParserError {
  type: string;
  status: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as BodyParserError).type === 'string' &&
    typeof (error as BodyParserError).status === 'number'
  );
}

/** PostgreSQL cancelled the statement (statement_timeout): its transaction rolled back. */
function isStatementTimeout(error: unknown): boolean {
  const driverError = (error as { driverError?: { code?: unknown }; code?: unknown } | null) ?? {};
  return (driverError.driverError?.code ?? driverError.code) === '57014';
}

/** An http-errors error meant for the client (`expose`), with a 4xx status. */
function isExposedClientError(error: unknown): error is { status: number } {
  const candidate = error as { status?: unknown; expose?: unknown } | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    candidate.expose === true &&
    typeof candidate.status === 'number' &&
    candidate.status >= 400 &&
    candidate.status < 500
  );
}

/**
 * A failed query is logged by its SQLSTATE, constraint, message and stack, without its
 * parameters, its detail or the values a data exception quotes back (withoutQuotedValues): they
 * can carry what a request sent (an event's phone and text), which must never reach a log.
 */
function loggable(error: unknown): unknown {
  if (!(error instanceof QueryFailedError)) {
    return error;
  }
  const driver = (error.driverError ?? {}) as { code?: unknown; constraint?: unknown };
  const message = withoutQuotedValues(error.message, driver.code);
  return {
    type: 'QueryFailedError',
    code: driver.code,
    constraint: driver.constraint,
    message,
    stack: error.stack?.replace(error.message, message),
  };
}

export interface MappedError {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/**
 * Maps anything thrown while serving a request to a status and a Portuguese message.
 * Unknown errors become a 500 whose message carries only an error id; the details go to
 * the log under that id.
 */
export function mapError(error: unknown, logger: Logger, requestId?: string): MappedError {
  if (error instanceof DomainError) {
    const mapped: MappedError = { status: statusOfKind(error.kind), message: error.message };
    if (error instanceof RateLimitedError) {
      mapped.headers = { 'Retry-After': String(error.retryAfterSeconds) };
    }
    return mapped;
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    const ownMessage =
      typeof response === 'object' && response !== null && 'portuguese' in response
        ? String(response.portuguese)
        : undefined;
    return { status, message: ownMessage ?? PORTUGUESE_DEFAULTS[status] ?? error.message };
  }
  if (isBodyParserError(error)) {
    if (error.type === 'entity.parse.failed') {
      return { status: 400, message: 'JSON malformado no corpo da requisição' };
    }
    if (error.type === 'entity.too.large') {
      return { status: 413, message: PORTUGUESE_DEFAULTS[413] };
    }
    if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
      return { status: 415, message: PORTUGUESE_DEFAULTS[415] };
    }
    return {
      status: error.status >= 400 && error.status < 500 ? error.status : 400,
      message: PORTUGUESE_DEFAULTS[400],
    };
  }
  if (isExposedClientError(error)) {
    // body-parser's errors without a type, e.g. a compressed body that does not inflate.
    return { status: error.status, message: 'Corpo da requisição ilegível' };
  }
  if (isStatementTimeout(error)) {
    return {
      status: 503,
      message: 'A operação demorou demais e foi cancelada sem alterar nada; tente novamente',
      headers: { 'Retry-After': '5' },
    };
  }
  if (isUniqueViolation(error)) {
    return { status: 409, message: 'Registro duplicado: já existe um recurso com estes dados' };
  }
  const errorId = randomUUID();
  logger.error({ errorId, req: { id: requestId }, err: loggable(error) }, 'Unhandled error');
  return { status: 500, message: `Erro interno do servidor (id do erro: ${errorId})` };
}

export function sendError(response: Response, request: Request, mapped: MappedError): void {
  for (const [name, value] of Object.entries(mapped.headers ?? {})) {
    response.setHeader(name, value);
  }
  response
    .status(mapped.status)
    .json(errorBody(mapped.status, mapped.message, request.originalUrl.split('?')[0]));
}

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger(AllExceptionsFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    if (response.headersSent) {
      return;
    }
    const request = http.getRequest<Request>();
    sendError(response, request, mapError(exception, this.logger, requestIdOf(request)));
  }
}
