import { INestApplication, Logger, NestMiddleware } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { createRootLogger } from './common/logging/logger-options';
import { mapError, sendError } from './common/http/all-exceptions.filter';
import { forwardedAddressOf, TrustedHop } from './common/http/forwarded-address';
import { buildOpenApiDocument } from './common/http/openapi-document';
import { JsonBodyMiddleware } from './common/http/json-body.middleware';
import { requestIdOf } from './common/http/request-state';
import { AddressOf, requestLogMiddleware } from './common/logging/request-log.middleware';
import { Metrics } from './common/metrics/metrics';
import { RateLimitMiddleware } from './common/rate-limit/rate-limit.middleware';
import { AppConfig } from './config/app-config.service';
import { GatewayEventsGate } from './modules/gateway-events/api/gateway-events.gate';
import { GatewayEventsRoute } from './modules/gateway-events/api/gateway-events.route';
import { MetaWebhookRoute } from './modules/gateway-events/api/meta-webhook.route';

/** Builds the whole application; main.ts and the end-to-end tests both start it this way. */
export async function createApp(config: AppConfig, databaseUrl: string): Promise<INestApplication> {
  const rootLogger = createRootLogger(config);
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot({ config, databaseUrl, rootLogger }),
    {
      bodyParser: false,
      bufferLogs: false,
    },
  );
  app.useLogger(app.get(PinoNestLogger));
  app.disable('x-powered-by');
  // Which X-Forwarded-For hops to believe (TRUST_PROXY): request.ip, and so the rate limits,
  // the login lock and the logs, see the client behind the load balancer, never a spoofed hop.
  app.set('trust proxy', config.trustProxy);
  app.enableShutdownHooks();
  // One Express layer ahead of every route (Swagger's and unknown paths included) rather than
  // Nest's MiddlewareConsumer, whose per-middleware route matching cost more than the
  // middleware's own work on a cached authenticated GET.
  app.use(
    httpPipeline(
      app.get(RateLimitMiddleware),
      app.get(GatewayEventsGate),
      app.get(JsonBodyMiddleware),
    ),
  );
  serveAheadOfExpress(
    app,
    requestLogMiddleware(rootLogger, app.get(Metrics), addressOutsideExpress(app)),
    app.get(MetaWebhookRoute),
    app.get(GatewayEventsRoute),
  );
  setUpOpenApi(app);
  return app;
}

/**
 * Every request is logged, then offered to Meta's webhook route and to `route` (the gateway's
 * events, which they serve without Express: see MetaWebhookRoute, GatewayEventsRoute), and
 * only then, if passed on, handed to Express.
 */
function serveAheadOfExpress(
  app: NestExpressApplication,
  requestLog: ReturnType<typeof requestLogMiddleware>,
  metaRoute: MetaWebhookRoute,
  route: GatewayEventsRoute,
): void {
  const server = app.getHttpServer();
  const express = app.getHttpAdapter().getInstance();
  if (!server.listeners('request').includes(express)) {
    // Both would answer every request.
    throw new Error("Express is not the HTTP server's request listener");
  }
  server.removeListener('request', express);
  server.on('request', (request: IncomingMessage, response: ServerResponse) =>
    requestLog(request, response, () =>
      metaRoute.handle(request, response, () =>
        route.handle(request, response, () => {
          express(request, response);
        }),
      ),
    ),
  );
}

/** The client's address of a request Express never saw, as TRUST_PROXY tells Express to read it. */
function addressOutsideExpress(app: NestExpressApplication): AddressOf {
  const trusted = app.getHttpAdapter().getInstance().get('trust proxy fn') as TrustedHop;
  return (request) => forwardedAddressOf(request, trusted);
}

const pipelineLogger = new Logger('HttpPipeline');

type Stage = NestMiddleware<Request, Response> | RequestHandler;

/** Runs the stages in order as one middleware; an error gets the API's error body. */
function httpPipeline(...stages: Stage[]): RequestHandler {
  const handlers = stages.map((stage) =>
    typeof stage === 'function' ? stage : stage.use.bind(stage),
  );
  return (request: Request, response: Response, next: NextFunction) => {
    let index = 0;
    const proceed = (error?: unknown): void => {
      if (error !== undefined) {
        sendError(response, request, mapError(error, pipelineLogger, requestIdOf(request)));
      } else if (index === handlers.length) {
        next();
      } else {
        void handlers[index++](request, response, proceed);
      }
    };
    proceed();
  };
}

function setUpOpenApi(app: INestApplication): void {
  SwaggerModule.setup('api/docs', app, buildOpenApiDocument(app), {
    jsonDocumentUrl: 'api/docs-json',
  });
}
