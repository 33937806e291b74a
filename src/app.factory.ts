import { INestApplication, Logger, NestMiddleware } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { createRootLogger } from './common/logging/logger-options';
import { mapError, sendError } from './common/http/all-exceptions.filter';
import { buildOpenApiDocument } from './common/http/openapi-document';
import { JsonBodyMiddleware } from './common/http/json-body.middleware';
import { requestIdOf } from './common/http/request-state';
import { requestLogMiddleware } from './common/logging/request-log.middleware';
import { Metrics } from './common/metrics/metrics';
import { RateLimitMiddleware } from './common/rate-limit/rate-limit.middleware';
import { AppConfig } from './config/app-config.service';
import { GatewayEventsGate } from './modules/gateway-events/api/gateway-events.gate';
import { GatewayEventsRoute } from './modules/gateway-events/api/gateway-events.route';

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
  // middleware's own work on a cached authenticated GET. The gateway's events are served right
  // after the request log (GatewayEventsRoute) when they need nothing of the rest.
  app.use(
    httpPipeline(
      requestLogMiddleware(rootLogger, app.get(Metrics)),
      app.get(GatewayEventsRoute),
      app.get(RateLimitMiddleware),
      app.get(GatewayEventsGate),
      app.get(JsonBodyMiddleware),
    ),
  );
  setUpOpenApi(app);
  return app;
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
