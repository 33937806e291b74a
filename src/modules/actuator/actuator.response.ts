import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';

const STATUSES = ['UP', 'DOWN', 'OUT_OF_SERVICE', 'UNKNOWN'];

export class HealthComponentResponse {
  @ApiProperty({ enum: STATUSES, example: 'UP' }) status!: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'Detalhes do componente (varia por componente); só com Authorization: Bearer <METRICS_TOKEN>',
  })
  details?: Record<string, unknown>;
}

/** Spring Boot Actuator's health shape (docs/API-RULES.md §10). */
@ApiExtraModels(HealthComponentResponse)
export class HealthResponse {
  @ApiProperty({ enum: STATUSES, example: 'UP' }) status!: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(HealthComponentResponse) },
    description: 'db, diskSpace, ping, queue, memory, cpu (só em /actuator/health)',
  })
  components?: Record<string, HealthComponentResponse>;
}

export class InfoAppResponse {
  @ApiProperty({ example: 'campaign-service' }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ example: '1.0.0' }) version!: string;
  @ApiProperty({ example: 'America/Sao_Paulo' }) timezone!: string;
}

export class InfoBuildResponse {
  @ApiProperty({ example: 'campaign-service' }) artifact!: string;
  @ApiProperty({ example: 'campaign-service' }) name!: string;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) time!: string;
  @ApiProperty({ example: '1.0.0' }) version!: string;
  @ApiProperty({ example: 'br.com.campaigns' }) group!: string;
}

export class InfoNameVersionResponse {
  @ApiProperty({ example: 'Node.js' }) name!: string;
  @ApiProperty({ example: 'v20.19.0' }) version!: string;
}

export class InfoVmResponse {
  @ApiProperty({ example: 'V8' }) name!: string;
  @ApiProperty({ example: 'Google' }) vendor!: string;
  @ApiProperty() version!: string;
}

/** Named as Spring's fields are: the runtime is Node.js and V8. */
export class InfoRuntimeResponse {
  @ApiProperty({ example: '20.19.0' }) version!: string;
  @ApiProperty({ example: 'Node.js' }) vendor!: string;
  @ApiProperty({ type: InfoNameVersionResponse }) runtime!: InfoNameVersionResponse;
  @ApiProperty({ type: InfoVmResponse }) jvm!: InfoVmResponse;
}

export class InfoOsResponse {
  @ApiProperty({ example: 'Linux' }) name!: string;
  @ApiProperty() version!: string;
  @ApiProperty({ example: 'x64' }) arch!: string;
}

export class InfoProcessResponse {
  @ApiProperty() pid!: number;
}

export class InfoResponse {
  @ApiProperty({ type: InfoAppResponse }) app!: InfoAppResponse;
  @ApiProperty({ type: InfoBuildResponse }) build!: InfoBuildResponse;
  @ApiProperty({ type: InfoRuntimeResponse }) java!: InfoRuntimeResponse;
  @ApiProperty({ type: InfoOsResponse }) os!: InfoOsResponse;
  @ApiProperty({ type: InfoProcessResponse }) process!: InfoProcessResponse;
}
