import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
  UseInterceptors,
  applyDecorators,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { catchError, from, mergeMap, Observable, of, throwError } from 'rxjs';
import { authenticatedSessionOf } from '../session/company-session';
import { ApiErrors } from '../http/api-errors.decorator';
import { routePathOf } from '../http/route-path';
import { DomainError, ValidationFailedError } from '../errors/domain-error';
import { IdempotencyRepository } from './idempotency.repository';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const FINGERPRINT = Symbol('idempotency-fingerprint');
/** Printable ASCII, as the IETF draft's examples and Stripe's keys (UUIDs, random strings). */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

type Fingerprint = 'json' | 'multipart';

/**
 * Idempotency-Key on a creating route (IETF httpapi "Idempotency-Key" draft, Stripe's
 * practice): the same key with the same request within 24 hours answers the first response
 * again and creates nothing; with another request, 422; while the first is still running, 409.
 * A JSON body is compared by content; a multipart upload, streamed to disk, by its size.
 */
export function Idempotent(fingerprint: Fingerprint = 'json'): MethodDecorator {
  return applyDecorators(
    SetMetadata(FINGERPRINT, fingerprint),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Repetir a mesma chave com o mesmo pedido em até 24 h devolve a primeira resposta sem criar nada de novo; com outro pedido, 422; enquanto o primeiro ainda roda, 409',
    }),
    ApiErrors(409, 422),
  );
}

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const header = request.headers[IDEMPOTENCY_HEADER];
    const session = authenticatedSessionOf(request);
    if (header === undefined || !session) {
      return next.handle();
    }
    const key = Array.isArray(header) ? header[0] : header;
    if (!VALID_KEY.test(key)) {
      return throwError(
        () =>
          new ValidationFailedError([
            ['Idempotency-Key', 'deve ter de 1 a 255 caracteres ASCII visíveis'],
          ]),
      );
    }
    const kind = this.reflector.get<Fingerprint>(FINGERPRINT, context.getHandler()) ?? 'json';
    const fingerprint = fingerprintOf(request, kind);
    return from(this.keys.claim(session.companyId, key, fingerprint)).pipe(
      mergeMap((claim) => {
        switch (claim.outcome) {
          case 'replay':
            response.status(claim.status);
            response.setHeader('Idempotent-Replayed', 'true');
            return of(claim.body);
          case 'mismatch':
            return throwError(() => new KeyReusedError());
          case 'in_progress':
            return throwError(
              () =>
                new DomainError(
                  'IDEMPOTENCY.IN_PROGRESS',
                  'conflict',
                  'Um pedido com esta Idempotency-Key ainda está em andamento; tente de novo em instantes',
                ),
            );
          case 'claimed':
            return next.handle().pipe(
              mergeMap((body) =>
                from(this.keys.complete(session.companyId, key, response.statusCode, body)).pipe(
                  mergeMap(() => of(body)),
                ),
              ),
              catchError((error: unknown) =>
                from(this.keys.release(session.companyId, key)).pipe(
                  mergeMap(() => throwError(() => error)),
                ),
              ),
            );
        }
      }),
    );
  }
}

/** The same key sent with another request. */
export class KeyReusedError extends DomainError {
  constructor() {
    super(
      'IDEMPOTENCY.KEY_REUSED',
      'unprocessable',
      'Esta Idempotency-Key já foi usada com outro pedido; use uma chave nova',
    );
  }
}

function fingerprintOf(request: Request, kind: Fingerprint): string {
  const what =
    kind === 'json'
      ? canonicalJson(request.body)
      : `multipart:${request.headers['content-length'] ?? 'chunked'}`;
  return createHash('sha256')
    .update(`${request.method} ${routePathOf(request)}\n${what}`)
    .digest('hex');
}

/** JSON with object keys in order, so that a retry that reorders fields is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(canonicalJson).join(',')}]`;
  }
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map(
        (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
      )
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
