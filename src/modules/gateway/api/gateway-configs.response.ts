import { ApiProperty } from '@nestjs/swagger';
import type { GatewayInstanceStatus } from '../application/gateway-configs.service';
import type { GatewayConfig } from '../domain/gateway-config.entity';

/** The API key is write-only: never part of a response. */
export class GatewayConfigResponse {
  @ApiProperty({ example: 7 }) id!: number;
  @ApiProperty({ example: 'Vendas - WhatsApp principal' }) name!: string;
  @ApiProperty({ example: 'https://gw.example.com' }) url!: string;
  @ApiProperty({ example: 'acme-sales' }) instance!: string;
  @ApiProperty({
    example: false,
    description:
      'O webhook deste serviço está registrado na instância (recibos, descadastro, estado)',
  })
  trackDelivery!: boolean;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'open',
    description: 'Estado da instância segundo o último evento connection.update recebido',
  })
  instanceState!: string | null;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) createdAt!: string;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) updatedAt!: string;
}

export class GatewayStatusResponse {
  @ApiProperty({ example: 'acme-sales' }) instance!: string;
  @ApiProperty({
    example: 'open',
    enum: ['open', 'connecting', 'close', 'unknown'],
    description:
      'Estado informado pelo gateway; unknown quando a instância existe mas não está carregada',
  })
  state!: string;
  @ApiProperty({ example: '2026-11-22T12:00:05.000Z' }) checkedAt!: string;
}

export function toGatewayConfigResponse(config: GatewayConfig): GatewayConfigResponse {
  return {
    id: config.id,
    name: config.name,
    url: config.url,
    instance: config.instance,
    trackDelivery: config.trackDelivery,
    instanceState: config.instanceState,
    createdAt: config.createdAt.toISOString(),
    updatedAt: config.updatedAt.toISOString(),
  };
}

export function toGatewayStatusResponse(status: GatewayInstanceStatus): GatewayStatusResponse {
  return {
    instance: status.instance,
    state: status.state,
    checkedAt: status.checkedAt.toISOString(),
  };
}
