import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CompanyAuthenticated, CurrentCompany } from '../../auth/api/guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { RecordsService } from '../application/records.service';
import { RecordIdPipe } from './record-id.pipe';
import {
  RecordResponse,
  RecordsPageResponse,
  toRecordResponse,
  toRecordsPageResponse,
} from './record.response';
import { DEFAULT_RECORDS_PAGE_SIZE, RecordsQueryDto, RecordValuesDto } from './records.dto';

@ApiTags('Registros das bases de dados')
@CompanyAuthenticated()
@ApiParam({ name: 'databaseId', type: Number })
@ApiErrors(404)
@Controller('api/user-databases/:databaseId/records')
export class UserDatabaseRecordsController {
  constructor(private readonly records: RecordsService) {}

  @Get()
  @ApiOperation({
    summary: 'Registros da base, paginados',
    description:
      'size de 1 a 100 (padrão 25); sortBy id (padrão), created_at, updated_at ou um columnName (sortBy desconhecido: 400); ' +
      'sortDirection ASC ou DESC (padrão), em qualquer caixa; colunas NUMBER ordenam como número. ' +
      'Vazios vêm por último em ASC e primeiro em DESC. search procura no id e nas colunas de texto.',
  })
  @ApiOkResponse({ type: RecordsPageResponse })
  async list(
    @CurrentCompany() company: CompanySession,
    @Param('databaseId', IdParamPipe) databaseId: number,
    @Query() query: RecordsQueryDto,
  ): Promise<RecordsPageResponse> {
    return toRecordsPageResponse(
      await this.records.list(company.companyId, databaseId, {
        page: query.page ?? 0,
        size: query.size ?? DEFAULT_RECORDS_PAGE_SIZE,
        sortBy: query.sortBy ?? 'id',
        sortDirection: query.sortDirection ?? 'DESC',
        search: query.search ?? '',
      }),
    );
  }

  @Get(':recordId')
  @ApiOperation({ summary: 'Um registro' })
  @ApiOkResponse({ type: RecordResponse })
  async get(
    @CurrentCompany() company: CompanySession,
    @Param('databaseId', IdParamPipe) databaseId: number,
    @Param('recordId', RecordIdPipe) recordId: string,
  ): Promise<RecordResponse> {
    const { database, record } = await this.records.get(company.companyId, databaseId, recordId);
    return toRecordResponse(database.columns, record);
  }

  @Post()
  @ApiOperation({
    summary: 'Cria um registro',
    description:
      'Chaves que não são colunas: 400. A coluna de telefone é obrigatória e normalizada. Base SYSTEM: 403.',
  })
  @ApiCreatedResponse({ type: RecordResponse })
  async create(
    @CurrentCompany() company: CompanySession,
    @Param('databaseId', IdParamPipe) databaseId: number,
    @Body() body: RecordValuesDto,
  ): Promise<RecordResponse> {
    const { database, record } = await this.records.create(
      company.companyId,
      databaseId,
      body.values,
    );
    return toRecordResponse(database.columns, record);
  }

  @Put(':recordId')
  @ApiOperation({
    summary: 'Atualiza um registro: colunas fora de values ficam como estão; null apaga o valor',
    description: 'Base SYSTEM: 403.',
  })
  @ApiOkResponse({ type: RecordResponse })
  async update(
    @CurrentCompany() company: CompanySession,
    @Param('databaseId', IdParamPipe) databaseId: number,
    @Param('recordId', RecordIdPipe) recordId: string,
    @Body() body: RecordValuesDto,
  ): Promise<RecordResponse> {
    const { database, record } = await this.records.update(
      company.companyId,
      databaseId,
      recordId,
      body.values,
    );
    return toRecordResponse(database.columns, record);
  }

  @Delete(':recordId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Exclui um registro, sem desfazer', description: 'Base SYSTEM: 403.' })
  @ApiNoContentResponse({ description: 'Excluído' })
  async delete(
    @CurrentCompany() company: CompanySession,
    @Param('databaseId', IdParamPipe) databaseId: number,
    @Param('recordId', RecordIdPipe) recordId: string,
  ): Promise<void> {
    await this.records.delete(company.companyId, databaseId, recordId);
  }
}
