import { Idempotent } from '../../../common/idempotency/idempotency.interceptor';
import { Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  CompanyAuthenticated,
  CurrentCompany,
  Public,
} from '../../auth/api/guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { ApiErrors, ErrorResponse } from '../../../common/http/api-errors.decorator';
import { MediaFilesService } from '../application/media-files.service';
import { MediaUploadService } from '../application/media-upload.service';
import { ACCEPTED_EXTENSIONS } from '../domain/media-kind';
import { MAX_MEDIA_BYTES } from '../domain/media.errors';
import { sendMediaFile } from './media-file.sender';
import { receiveMultipartFile } from './multipart-file.reader';
import { toUploadedMediaResponse, UploadedMediaResponse } from './uploaded-media.response';

/** A stored file goes out with the Content-Type of its own kind. */
const ANY_FILE = { '*/*': { schema: { type: 'string', format: 'binary' } } };

@ApiTags('Mídia')
@Controller('media')
export class MediaController {
  constructor(
    private readonly uploads: MediaUploadService,
    private readonly files: MediaFilesService,
  ) {}

  @Idempotent('multipart')
  @Post('upload')
  @HttpCode(201)
  @CompanyAuthenticated()
  @ApiOperation({
    summary: 'Envia um arquivo de mídia e devolve sua URL pública',
    description:
      `Multipart, campo \`file\`. Tipos aceitos: ${ACCEPTED_EXTENSIONS.join(', ')}. O tipo é conferido ` +
      'pelos primeiros bytes do arquivo (assinatura), além da extensão do nome: um arquivo cujo ' +
      'conteúdo não corresponde à extensão, ou de outro tipo, é recusado com 400. Limite de 100 MB ' +
      '(413). O arquivo vai direto para o armazenamento enquanto chega: S3 quando S3_BUCKET está ' +
      'definido, senão DATA_DIR/media, servido por GET /media/files/{filename}. Responde 201 ' +
      '(recurso criado) com a URL pública e permanente.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: { type: 'string', format: 'binary', description: 'O arquivo (até 100 MB)' },
      },
    },
  })
  @ApiCreatedResponse({ type: UploadedMediaResponse })
  @ApiResponse({
    status: 503,
    description: 'Falha ao gravar no armazenamento',
    type: ErrorResponse,
  })
  async upload(
    @CurrentCompany() company: CompanySession,
    @Req() request: Request,
  ): Promise<UploadedMediaResponse> {
    return toUploadedMediaResponse(
      await receiveMultipartFile(request, {
        field: 'file',
        maxFileBytes: MAX_MEDIA_BYTES,
        accept: (file) => this.uploads.upload(company.companyId, file),
        undo: (media) => this.uploads.discard(media),
      }),
    );
  }

  @Get('files/:filename')
  @Public()
  @ApiOperation({
    summary: 'Arquivo de mídia guardado localmente (público)',
    description:
      'Serve os arquivos do armazenamento local (DATA_DIR/media), inclusive os enviados antes de ' +
      'o S3 ser configurado. Aceita HEAD, requisições condicionais (If-None-Match, ' +
      'If-Modified-Since → 304) e um intervalo de bytes (Range → 206 com Content-Range; fora do ' +
      'arquivo → 416). Os nomes são únicos e o conteúdo nunca muda: Cache-Control público, de um ' +
      'ano, immutable.',
  })
  @ApiParam({ name: 'filename', example: '7-20261122-0b5f3c1e-6a1d-4c1b-9a55-2f0c8d1e7a90.jpg' })
  @ApiResponse({
    status: 200,
    description: 'O arquivo, com o Content-Type do seu tipo',
    content: ANY_FILE,
  })
  @ApiResponse({ status: 206, description: 'O intervalo pedido em Range', content: ANY_FILE })
  @ApiResponse({ status: 304, description: 'Não modificado' })
  @ApiErrors(404, 429)
  @ApiResponse({ status: 416, description: 'Intervalo fora do arquivo', type: ErrorResponse })
  async file(
    @Param('filename') filename: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    await sendMediaFile(request, response, this.files.locate(filename));
  }
}
