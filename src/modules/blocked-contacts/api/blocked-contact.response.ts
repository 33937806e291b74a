import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { BlockedContactsPage } from '../application/block-list.service';
import type { BlockImportSummary } from '../domain/block-import';
import type { BlockListStats } from '../domain/block-list-stats';
import { BLOCKED_BY, BlockedBy } from '../domain/blocked-by';
import type { BlockedContact } from '../domain/blocked-contact.entity';

export class BlockedContactResponse {
  @ApiProperty({ example: 41 }) id!: number;
  @ApiProperty({ example: 12 }) companyId!: number;
  @ApiProperty({ example: '5511987654321', description: 'Só dígitos, com código de país' })
  phoneNumber!: string;
  @ApiProperty({ nullable: true, type: String, example: 'Pediu para não receber mensagens' })
  reason!: string | null;
  @ApiProperty({ enum: BLOCKED_BY, example: 'MANUAL' }) blockedBy!: BlockedBy;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) blockedAt!: string;
  @ApiProperty({ example: true }) isActive!: boolean;
}

export class BlockedContactsPageResponse {
  @ApiProperty({ type: [BlockedContactResponse] }) content!: BlockedContactResponse[];
  @ApiProperty({ example: 130 }) totalElements!: number;
  @ApiProperty({ example: 6 }) totalPages!: number;
  @ApiProperty({ example: 25 }) size!: number;
  @ApiProperty({ example: 0, description: 'Número da página, a partir de 0' }) number!: number;
}

export class BlockImportResponse {
  @ApiProperty({ description: 'Falso quando nenhum número informado era válido' })
  success!: boolean;
  @ApiPropertyOptional({
    example: 'Nenhum número de telefone válido foi informado',
    description: 'Só quando success é falso',
  })
  error?: string;
  @ApiProperty({ example: 4 }) totalProvided!: number;
  @ApiProperty({
    example: 2,
    description: 'Bloqueados agora, incluindo os que voltaram a ser bloqueados',
  })
  successfullyBlocked!: number;
  @ApiProperty({
    example: 1,
    description: 'Já estavam bloqueados, ou repetidos na mesma requisição',
  })
  alreadyBlocked!: number;
  @ApiProperty({ example: 1 }) failed!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { 'abc-123': 'número de telefone inválido' },
    description: 'Cada número não lido, como foi enviado, e o motivo',
  })
  failedNumbers!: Record<string, string>;
}

export class BlockListStatsResponse {
  @ApiProperty({ example: 130, description: 'Números bloqueados ativos' }) totalBlocked!: number;
  @ApiProperty({
    nullable: true,
    type: String,
    example: '2026-11-22T12:00:00.000Z',
    description: 'Último bloqueio ou desbloqueio; null quando nunca houve',
  })
  lastUpdated!: string | null;
}

export function toBlockedContactResponse(contact: BlockedContact): BlockedContactResponse {
  return {
    id: Number(contact.id),
    companyId: contact.companyId,
    phoneNumber: contact.phoneNumber,
    reason: contact.reason,
    blockedBy: contact.blockedBy,
    blockedAt: contact.blockedAt.toISOString(),
    isActive: contact.isActive,
  };
}

export function toBlockedContactsPageResponse(
  page: BlockedContactsPage,
): BlockedContactsPageResponse {
  return {
    content: page.contacts.map(toBlockedContactResponse),
    totalElements: page.totalElements,
    totalPages: Math.ceil(page.totalElements / page.size),
    size: page.size,
    number: page.page,
  };
}

export function toBlockImportResponse(summary: BlockImportSummary): BlockImportResponse {
  return {
    success: summary.success,
    ...(summary.error === undefined ? {} : { error: summary.error }),
    totalProvided: summary.totalProvided,
    successfullyBlocked: summary.successfullyBlocked,
    alreadyBlocked: summary.alreadyBlocked,
    failed: summary.failed,
    // fromEntries defines own properties, so an input such as "__proto__" stays a plain key.
    failedNumbers: Object.fromEntries(summary.failedNumbers),
  };
}

export function toBlockListStatsResponse(stats: BlockListStats): BlockListStatsResponse {
  return {
    totalBlocked: stats.totalBlocked,
    lastUpdated: stats.lastChangedAt?.toISOString() ?? null,
  };
}

export function toCheckResponse(blocked: Map<string, boolean>): Record<string, boolean> {
  return Object.fromEntries(blocked);
}
