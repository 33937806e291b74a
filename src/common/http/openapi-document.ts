import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, getSchemaPath, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { buildInfo } from '../build-info';
import { ERRORS_OF_EVERY_ROUTE, ErrorResponse } from './api-errors.decorator';

const BODY_METHODS = ['post', 'put', 'patch', 'delete'] as const;

/** The OpenAPI description served at /api/docs-json, built from the controllers' decorators. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Serviço de campanhas de mensagens')
    .setDescription(
      'API multiempresa para campanhas de WhatsApp via Evolution API. Autentique com o cabeçalho ' +
        'X-Access-Token; rotas de administração usam ACCESS_TOKEN: Bearer <ADMIN_PASSWORD>. ' +
        'Erros: {timestamp, status, error, message, path}, mensagens em português.',
    )
    .setVersion(buildInfo().version)
    // package.json's "UNLICENSED": no right to use is granted; the link says what the term means.
    .setLicense(
      'UNLICENSED (proprietary)',
      'https://docs.npmjs.com/cli/v10/configuring-npm/package-json#license',
    )
    // Relative: the description is right wherever the service is reached.
    .addServer('/', 'Este serviço (o endereço em que esta descrição foi lida)')
    .addGlobalResponse(...ERRORS_OF_EVERY_ROUTE)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Access-Token' }, 'accessToken')
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'ACCESS_TOKEN',
        description: 'Bearer <ADMIN_PASSWORD>',
      },
      'admin',
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, quando definido' },
      'metricsToken',
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorResponse] });
  declareBodyLimit(document);
  return document;
}

/**
 * Every request body has a size limit (JSON per route family, uploads per kind), answered
 * with 413 before a handler runs: declared here once rather than on each route.
 */
function declareBodyLimit(document: OpenAPIObject): void {
  for (const path of Object.values(document.paths)) {
    for (const method of BODY_METHODS) {
      const operation = path[method];
      if (operation?.requestBody && !operation.responses['413']) {
        operation.responses['413'] = {
          description: 'Corpo grande demais',
          content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorResponse) } } },
        };
      }
    }
  }
}
