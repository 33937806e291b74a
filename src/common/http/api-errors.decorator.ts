import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse, type ApiResponseOptions } from '@nestjs/swagger';

/** The one error body of every route (docs/API-RULES.md §1), one schema in the description. */
export class ErrorResponse {
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) timestamp!: string;
  @ApiProperty({ example: 400 }) status!: number;
  @ApiProperty({ example: 'Bad Request' }) error!: string;
  @ApiProperty({
    example: '{email=deve ser um e-mail válido, password=deve ter no mínimo 6 caracteres}',
  })
  message!: string;
  @ApiProperty({ example: '/api/auth/register' }) path!: string;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Dados inválidos ou incompletos',
  401: 'Token de acesso inválido ou ausente',
  403: 'Sem permissão para o recurso',
  404: 'Recurso não encontrado',
  409: 'Conflito',
  413: 'Corpo grande demais',
  415: 'Tipo ou codificação de conteúdo não suportado',
  422: 'Idempotency-Key já usada com outro pedido',
  429: 'Limite de requisições excedido (com Retry-After)',
  500: 'Erro interno; a mensagem traz o id do erro, registrado no log',
  503: 'Consulta ao banco excedeu o tempo (com Retry-After); nada foi alterado',
};

function errorResponse(status: number): ApiResponseOptions {
  return { status, description: DESCRIPTIONS[status], type: ErrorResponse };
}

/** Documents the error body for the listed statuses. */
export const ApiErrors = (...statuses: number[]): MethodDecorator & ClassDecorator =>
  applyDecorators(...statuses.map((status) => ApiResponse(errorResponse(status))));

/**
 * What any route may answer, whatever it does: 400 for a query with a NUL character or half a
 * UTF-16 pair, 500 for an error of our own. Given to the document as global responses.
 */
export const ERRORS_OF_EVERY_ROUTE: ApiResponseOptions[] = [400, 500].map(errorResponse);

/**
 * What a route that reads a credential from the database may also answer: a bad or missing
 * credential, the rate limit, and a query past STATEMENT_TIMEOUT_MS.
 */
export const ApiCredentialErrors = (): MethodDecorator & ClassDecorator => ApiErrors(401, 429, 503);
