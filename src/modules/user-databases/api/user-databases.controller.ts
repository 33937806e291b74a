import { Idempotent } from '../../../common/idempotency/idempotency.interceptor';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Req,
  Res,
} from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CompanyAuthenticated, CurrentCompany } from '../../auth/api/guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { FileImportsService } from '../application/file-imports.service';
import { GatewaySyncService } from '../application/gateway-sync.service';
import { UserDatabasesService } from '../application/user-databases.service';
import { parseFileDatabaseConfig } from './file-database-config';
import { GatewaySyncDto } from './gateway-sync.dto';
import { MultipartFormReceiver } from './multipart-form.receiver';
import {
  DatabaseStatisticsResponse,
  FileAnalysisResponse,
  FileDatabaseResponse,
  toDatabaseStatisticsResponse,
  toFileAnalysisResponse,
  toFileDatabaseResponse,
  toUserDatabaseResponse,
  UserDatabaseResponse,
} from './user-database.response';

const FILE_PART = {
  type: 'string',
  format: 'binary',
  description:
    'CSV (vírgula ou ponto e vírgula; UTF-8, com ou sem BOM, ou Latin-1) ou XLSX; 1ª linha com os nomes; até 50 MB e 1.000.000 de linhas',
};

@ApiTags('Bases de dados')
@CompanyAuthenticated()
@Controller('api/user-databases')
export class UserDatabasesController {
  constructor(
    private readonly databases: UserDatabasesService,
    private readonly files: FileImportsService,
    private readonly sync: GatewaySyncService,
    private readonly forms: MultipartFormReceiver,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      'Bases da empresa: a base SYSTEM "Contatos de campanhas" primeiro, depois as mais novas',
    description:
      'A base SYSTEM recebe cada contato enviado cerca de um segundo depois do envio (cópia em lotes).',
  })
  @ApiOkResponse({ type: UserDatabaseResponse, isArray: true })
  async list(@CurrentCompany() company: CompanySession): Promise<UserDatabaseResponse[]> {
    return (await this.databases.list(company.companyId)).map(toUserDatabaseResponse);
  }

  @Get('count')
  @ApiOperation({
    summary: 'Quantas bases a empresa tem e quantas ainda pode criar',
    description:
      'limit = limite do plano (databaseLimit da empresa ou DEFAULT_DATABASE_LIMIT); a base SYSTEM não conta.',
  })
  @ApiOkResponse({ type: DatabaseStatisticsResponse })
  async count(@CurrentCompany() company: CompanySession): Promise<DatabaseStatisticsResponse> {
    return toDatabaseStatisticsResponse(await this.databases.statistics(company.companyId));
  }

  @Post('analyze')
  @HttpCode(200)
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', required: ['file'], properties: { file: FILE_PART } } })
  @ApiOperation({
    summary:
      'Lê um arquivo sem gravar nada: colunas, linhas válidas estimadas, até 5 exemplos por coluna e avisos',
    description:
      'Avisos: colunas repetidas (renomeadas "Nome (2)") ou sem nome ("Coluna 3"), nenhuma coluna com cara de telefone, ' +
      'linhas com telefone inválido. 413 acima de 50 MB; XLSX é inspecionado contra bombas ZIP antes da leitura.',
  })
  @ApiOkResponse({ type: FileAnalysisResponse })
  @ApiErrors(413)
  async analyze(@Req() request: Request): Promise<FileAnalysisResponse> {
    return toFileAnalysisResponse(
      await this.forms.withForm(request, ['file'], (form) => this.files.analyze(form.file)),
    );
  }

  @Idempotent('multipart')
  @Post()
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file', 'config'],
      properties: {
        file: FILE_PART,
        config: {
          type: 'string',
          description:
            'JSON (application/json): {name, description?, columnMappings: [{originalName, displayName, dataType, isPhoneColumn}]}; ' +
            'exatamente uma coluna de telefone; colunas fora de columnMappings não são importadas',
          example:
            '{"name":"Clientes","columnMappings":[{"originalName":"Nome","displayName":"Nome","dataType":"TEXT","isPhoneColumn":false},' +
            '{"originalName":"Telefone","displayName":"Telefone","dataType":"PHONE","isPhoneColumn":true}]}',
        },
      },
    },
  })
  @ApiOperation({
    summary: 'Cria uma base (UPLOAD) a partir de um arquivo; 201 com a base ACTIVE',
    description:
      'columnName vem de originalName: minúsculas ASCII em snake_case, sem acentos, único na base (id, created_at e ' +
      'updated_at recebem sufixo _2). Linhas com telefone vazio ou inválido ficam de fora (skippedRows); células que não ' +
      'cabem no tipo da coluna ficam vazias (invalidValues); texto acima de 1000 caracteres é cortado. isNameColumn: a ' +
      'coluna de texto chamada nome, name, nome_completo, full_name, … A importação é atômica: tudo ou nada.',
  })
  @ApiCreatedResponse({ type: FileDatabaseResponse })
  @ApiErrors(413)
  async create(
    @CurrentCompany() company: CompanySession,
    @Req() request: Request,
  ): Promise<FileDatabaseResponse> {
    return toFileDatabaseResponse(
      await this.forms.withForm(request, ['file', 'config'], async (form) =>
        this.files.createFromFile(
          company.companyId,
          form.file,
          await parseFileDatabaseConfig(form.fields.get('config')),
        ),
      ),
    );
  }

  @Post('gateway/sync')
  @ApiOperation({
    summary:
      'Cria (201) ou atualiza (200, databaseId) uma base GATEWAY com os contatos de uma instância',
    description:
      'Lê findContacts e, se pedido, fetchAllGroups (grupos e membros) e findChats (não salvos). Uma atualização troca todos ' +
      'os registros pela leitura nova. Colunas: phone, name, jid, type (contact, unsaved, group, group_member). ' +
      'lastSyncSummary: totalFetched = processed + duplicatesSkipped + filteredByPhone.',
  })
  @ApiCreatedResponse({ type: UserDatabaseResponse })
  @ApiOkResponse({ type: UserDatabaseResponse })
  @ApiErrors(404, 503)
  async gatewaySync(
    @CurrentCompany() company: CompanySession,
    @Body() body: GatewaySyncDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<UserDatabaseResponse> {
    const { database, created } = await this.sync.sync(company.companyId, {
      databaseId: body.databaseId ?? null,
      gatewayConfigId: body.gatewayConfigId,
      name: body.name?.trim() ?? null,
      description: body.description?.trim() || null,
      includeGroups: body.includeGroups ?? false,
      includeGroupMembers: body.includeGroupMembers ?? false,
      includeUnsavedContacts: body.includeUnsavedContacts ?? false,
      includeContactsWithoutPhone: body.includeContactsWithoutPhone ?? false,
      deduplicate: body.deduplicate ?? true,
    });
    response.status(created ? 201 : 200);
    return toUserDatabaseResponse(database);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Uma base' })
  @ApiOkResponse({ type: UserDatabaseResponse })
  @ApiErrors(404)
  async get(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<UserDatabaseResponse> {
    return toUserDatabaseResponse(await this.databases.get(company.companyId, id));
  }

  @Patch(':id/toggle-status')
  @ApiOperation({
    summary: 'Alterna ACTIVE ↔ INACTIVE',
    description:
      'Outros status: 400. A base SYSTEM: 403. Campanhas não usam bases INACTIVE (databaseConfigId: 400).',
  })
  @ApiOkResponse({ type: UserDatabaseResponse })
  @ApiErrors(404)
  async toggleStatus(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<UserDatabaseResponse> {
    return toUserDatabaseResponse(await this.databases.toggleStatus(company.companyId, id));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Exclui a base e todos os registros, sem lixeira',
    description: 'A base SYSTEM "Contatos de campanhas" não pode ser excluída: 403.',
  })
  @ApiNoContentResponse({ description: 'Excluída' })
  @ApiErrors(404)
  async delete(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<void> {
    await this.databases.delete(company.companyId, id);
  }
}
