import { Idempotent } from '../../../common/idempotency/idempotency.interceptor';
import { Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCompany, TenantScoped } from '../../auth/api/guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { BulkBody } from '../../../common/http/bulk-body';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import type { ContactImportRequest } from '../../user-databases/application/push-imports.service';
import { ContactImportsService } from '../application/contact-imports.service';
import type { ImportKind } from '../domain/import-job.entity';
import {
  ContactsImportDto,
  GenericImportDto,
  ImportModeQueryDto,
  ImportOptionsDto,
} from './contact-imports.dto';
import {
  ImportJobAcceptedResponse,
  ImportJobResponse,
  toImportJobAcceptedResponse,
  toImportJobResponse,
} from './import-job.response';
import {
  ImportedDatabaseResponse,
  toImportedDatabaseResponse,
} from '../../user-databases/api/user-database.response';

const IMPORT_DESCRIPTION =
  'Cria uma base PUSH_IMPORT, ou acrescenta à base databaseId da empresa (novas chaves viram colunas). Telefones ' +
  'normalizados; linhas sem telefone válido ou com valores que não cabem na coluna contam em invalidRows (as primeiras 20 ' +
  'em importSummary.errors). Até 100.000 linhas por requisição. Sem async: 201 com a base e importSummary. ' +
  'Com ?async=true: 202 {jobId, status: PENDING, submittedAt}; acompanhe em GET …/imports/jobs/{jobId}.';

@ApiTags('Importação de contatos')
@TenantScoped()
@ApiParam({ name: 'companyId', type: Number, description: 'Empresa do token' })
@ApiErrors(404)
@Controller('api/companies/:companyId/imports')
export class ContactImportsController {
  constructor(private readonly imports: ContactImportsService) {}

  @Idempotent()
  @Post('contacts')
  @ApiOperation({
    summary: 'Importa contatos {phoneNumber, name, …}',
    description: IMPORT_DESCRIPTION,
  })
  @ApiBody({ type: ContactsImportDto })
  @ApiCreatedResponse({ type: ImportedDatabaseResponse })
  @ApiAcceptedResponse({ type: ImportJobAcceptedResponse })
  async contacts(
    @CurrentCompany() company: CompanySession,
    @BulkBody('contacts') body: ContactsImportDto,
    @Query() query: ImportModeQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ImportedDatabaseResponse | ImportJobAcceptedResponse> {
    return this.import(
      company.companyId,
      requestOf('CONTACTS', body, body.contacts),
      query,
      response,
    );
  }

  @Idempotent()
  @Post('contacts/generic')
  @ApiOperation({
    summary: 'Importa linhas genéricas {coluna: valor} com uma coluna de telefone',
    description: IMPORT_DESCRIPTION,
  })
  @ApiBody({ type: GenericImportDto })
  @ApiCreatedResponse({ type: ImportedDatabaseResponse })
  @ApiAcceptedResponse({ type: ImportJobAcceptedResponse })
  async generic(
    @CurrentCompany() company: CompanySession,
    @BulkBody('rows') body: GenericImportDto,
    @Query() query: ImportModeQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ImportedDatabaseResponse | ImportJobAcceptedResponse> {
    return this.import(company.companyId, requestOf('GENERIC', body, body.rows), query, response);
  }

  @Get('jobs/:jobId')
  @ApiOperation({
    summary: 'Estado de uma importação assíncrona (PENDING, RUNNING, COMPLETED, FAILED)',
  })
  @ApiOkResponse({ type: ImportJobResponse })
  async job(
    @CurrentCompany() company: CompanySession,
    @Param('jobId', IdParamPipe) jobId: number,
  ): Promise<ImportJobResponse> {
    return toImportJobResponse(await this.imports.job(company.companyId, jobId));
  }

  private async import(
    companyId: number,
    request: ContactImportRequest,
    query: ImportModeQueryDto,
    response: Response,
  ): Promise<ImportedDatabaseResponse | ImportJobAcceptedResponse> {
    if (query.async === 'true') {
      response.status(202);
      return toImportJobAcceptedResponse(await this.imports.submit(companyId, request));
    }
    return toImportedDatabaseResponse(await this.imports.importNow(companyId, request));
  }
}

function requestOf(
  kind: ImportKind,
  options: ImportOptionsDto,
  rows: unknown[],
): ContactImportRequest {
  return {
    kind,
    name: options.name?.trim() ?? null,
    description: options.description?.trim() || null,
    dedupe: options.dedupe ?? true,
    databaseId: options.databaseId ?? null,
    rows,
  };
}
