import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentCompany, TenantScoped } from '../../auth/api/guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { BlockListService } from '../application/block-list.service';
import {
  BlockContactDto,
  DEFAULT_PAGE_SIZE,
  ImportBlockedContactsDto,
  ListBlockedContactsQueryDto,
  MAX_NUMBERS_PER_REQUEST,
} from './blocked-contacts.dto';
import {
  BlockedContactResponse,
  BlockedContactsPageResponse,
  BlockImportResponse,
  BlockListStatsResponse,
  toBlockedContactResponse,
  toBlockedContactsPageResponse,
  toBlockImportResponse,
  toBlockListStatsResponse,
  toCheckResponse,
} from './blocked-contact.response';
import { parsePhoneListBody } from './phone-list.body';

@ApiTags('Contatos bloqueados')
@TenantScoped()
@ApiParam({ name: 'companyId', type: Number, description: 'Empresa do token' })
@Controller('api/companies/:companyId/blocked-contacts')
export class BlockedContactsController {
  constructor(private readonly blockList: BlockListService) {}

  @Post('import')
  @HttpCode(200)
  @ApiOperation({
    summary: `Bloqueia até ${MAX_NUMBERS_PER_REQUEST} números de uma vez (blockedBy IMPORT)`,
    description:
      'Números inválidos vão para failedNumbers; repetidos na requisição são bloqueados uma vez e ' +
      'contados em alreadyBlocked; um número desbloqueado antes volta a ser bloqueado e conta em ' +
      'successfullyBlocked. successfullyBlocked + alreadyBlocked + failed = totalProvided. ' +
      'success é falso, com error, quando nenhum número era válido.',
  })
  @ApiOkResponse({ type: BlockImportResponse })
  async import(
    @CurrentCompany() company: CompanySession,
    @Body() body: ImportBlockedContactsDto,
  ): Promise<BlockImportResponse> {
    return toBlockImportResponse(
      await this.blockList.importNumbers(company.companyId, body.phoneNumbers, body.reason),
    );
  }

  @Post('check')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Diz, para cada número, se está bloqueado',
    description:
      `Corpo: lista JSON de até ${MAX_NUMBERS_PER_REQUEST} textos. A resposta usa cada número como ` +
      'foi enviado; um número inválido responde false.',
  })
  @ApiBody({
    schema: {
      type: 'array',
      items: { type: 'string' },
      maxItems: MAX_NUMBERS_PER_REQUEST,
      example: ['5511987654321', '(11) 98765-1234'],
    },
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      additionalProperties: { type: 'boolean' },
      example: { '5511987654321': true, '(11) 98765-1234': false },
    },
  })
  async check(
    @CurrentCompany() company: CompanySession,
    @Body() body: unknown,
  ): Promise<Record<string, boolean>> {
    return toCheckResponse(await this.blockList.check(company.companyId, parsePhoneListBody(body)));
  }

  @Get('stats')
  @ApiOperation({ summary: 'Total de números bloqueados e a última mudança na lista' })
  @ApiOkResponse({ type: BlockListStatsResponse })
  async stats(@CurrentCompany() company: CompanySession): Promise<BlockListStatsResponse> {
    return toBlockListStatsResponse(await this.blockList.stats(company.companyId));
  }

  @Post()
  @ApiOperation({
    summary: 'Bloqueia um número (blockedBy MANUAL)',
    description:
      '400 quando o número já está bloqueado; um número desbloqueado antes volta a ser bloqueado.',
  })
  @ApiCreatedResponse({ type: BlockedContactResponse })
  async block(
    @CurrentCompany() company: CompanySession,
    @Body() body: BlockContactDto,
  ): Promise<BlockedContactResponse> {
    return toBlockedContactResponse(
      await this.blockList.block(company.companyId, body.phoneNumber, body.reason),
    );
  }

  @Get()
  @ApiOperation({
    summary: 'Números bloqueados ativos, do bloqueio mais recente ao mais antigo',
    description: `Página a partir de 0; size padrão ${DEFAULT_PAGE_SIZE}, no máximo 100.`,
  })
  @ApiOkResponse({ type: BlockedContactsPageResponse })
  async list(
    @CurrentCompany() company: CompanySession,
    @Query() query: ListBlockedContactsQueryDto,
  ): Promise<BlockedContactsPageResponse> {
    return toBlockedContactsPageResponse(
      await this.blockList.list(company.companyId, {
        page: query.page ?? 0,
        size: query.size ?? DEFAULT_PAGE_SIZE,
        search: query.search ?? '',
      }),
    );
  }

  @Delete(':phoneNumber')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Desbloqueia um número (em qualquer formato)',
    description:
      'O registro fica guardado com isActive falso. 404 quando o número não está bloqueado.',
  })
  @ApiParam({ name: 'phoneNumber', example: '5511987654321' })
  @ApiNoContentResponse({ description: 'Desbloqueado' })
  @ApiErrors(404)
  async unblock(
    @CurrentCompany() company: CompanySession,
    @Param('phoneNumber') phoneNumber: string,
  ): Promise<void> {
    await this.blockList.unblock(company.companyId, phoneNumber);
  }
}
