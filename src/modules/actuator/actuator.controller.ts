import { applyDecorators, Controller, Get, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiSecurity,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { arch, release, type } from 'node:os';
import { Public } from '../auth/api/guards/auth.decorators';
import { buildInfo } from '../../common/build-info';
import { ErrorResponse } from '../../common/http/api-errors.decorator';
import { Metrics, METRICS_CONTENT_TYPE } from '../../common/metrics/metrics';
import { AppConfig } from '../../config/app-config.service';
import { ActuatorHealthService, SpringHealth } from './actuator-health.service';
import { holdsMetricsToken, MetricsTokenGuard } from './metrics-token.guard';
import { HealthResponse, InfoResponse } from './actuator.response';

@ApiTags('Serviço')
@Public()
@Controller('actuator')
export class ActuatorController {
  constructor(
    private readonly health: ActuatorHealthService,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  @Get('info')
  @ApiOperation({ summary: 'Versão, build, runtime, sistema e processo' })
  @ApiOkResponse({ type: InfoResponse })
  info(): Record<string, unknown> {
    const build = buildInfo();
    return {
      app: {
        name: build.name,
        description: build.description,
        version: build.version,
        timezone: this.config.appTimezone,
      },
      build: {
        artifact: build.name,
        name: build.name,
        time: build.time,
        version: build.version,
        group: 'br.com.campaigns',
      },
      java: {
        version: process.versions.node,
        vendor: 'Node.js',
        runtime: { name: 'Node.js', version: process.version },
        jvm: { name: 'V8', vendor: 'Google', version: process.versions.v8 },
      },
      os: { name: type(), version: release(), arch: arch() },
      process: { pid: process.pid },
    };
  }

  @Get('health')
  @ApiOperation({
    summary: 'Saúde: banco, disco, ping, fila, memória, CPU (formato Spring Boot Actuator)',
    description:
      'Pública: o estado geral e o de cada componente. Os detalhes dos componentes (caminho do ' +
      'diretório de dados, memória, fila…) só com Authorization: Bearer <METRICS_TOKEN>, como o ' +
      'show-details: when-authorized do Spring; sem METRICS_TOKEN definido, nunca.',
  })
  @ApiHealthResponses()
  async full(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SpringHealth> {
    const withDetails = holdsMetricsToken(request, this.config.metricsToken);
    return withStatus(response, await this.health.full(withDetails));
  }

  @Get('health/liveness')
  @ApiOperation({ summary: 'O processo responde' })
  @ApiHealthResponses()
  liveness(@Res({ passthrough: true }) response: Response): SpringHealth {
    return withStatus(response, this.health.liveness());
  }

  @Get('health/readiness')
  @ApiOperation({ summary: 'Pronto para receber tráfego (banco acessível)' })
  @ApiHealthResponses()
  async readiness(@Res({ passthrough: true }) response: Response): Promise<SpringHealth> {
    return withStatus(response, await this.health.readiness());
  }

  @Get('prometheus')
  @UseGuards(MetricsTokenGuard)
  @ApiOperation({
    summary: 'Métricas no formato de texto do Prometheus (docs/OPERATIONS.md, "Metrics")',
    description:
      'Pública como o resto de /actuator e fora dos limites de requisições; quando METRICS_TOKEN ' +
      'está definido, exige Authorization: Bearer <METRICS_TOKEN>. Cada instância informa as suas.',
  })
  // Either no credential (METRICS_TOKEN unset) or the bearer token (METRICS_TOKEN set).
  @ApiSecurity({})
  @ApiSecurity('metricsToken')
  @ApiOkResponse({
    description: 'As métricas, no formato de exposição de texto 0.0.4',
    content: {
      [METRICS_CONTENT_TYPE]: {
        schema: {
          type: 'string',
          example:
            '# HELP campaign_service_messages_total Campaign contacts that reached an outcome\n' +
            '# TYPE campaign_service_messages_total counter\n' +
            'campaign_service_messages_total{outcome="sent",reason="gateway"} 42\n',
        },
      },
    },
  })
  @ApiUnauthorizedResponse({
    description:
      'METRICS_TOKEN está definido e o cabeçalho Authorization: Bearer <METRICS_TOKEN> falta ou não confere',
    type: ErrorResponse,
  })
  async prometheus(@Res() response: Response): Promise<void> {
    const text = await this.metrics.scrape();
    response.status(200).setHeader('Content-Type', METRICS_CONTENT_TYPE);
    response.setHeader('Cache-Control', 'no-store');
    response.end(text);
  }
}

/** UP answers 200, DOWN and OUT_OF_SERVICE 503, both with the health body. */
function ApiHealthResponses(): MethodDecorator {
  return applyDecorators(
    ApiOkResponse({ description: 'UP', type: HealthResponse }),
    ApiServiceUnavailableResponse({ description: 'DOWN ou OUT_OF_SERVICE', type: HealthResponse }),
  );
}

function withStatus(response: Response, health: SpringHealth): SpringHealth {
  response.status(health.status === 'DOWN' || health.status === 'OUT_OF_SERVICE' ? 503 : 200);
  return health;
}
