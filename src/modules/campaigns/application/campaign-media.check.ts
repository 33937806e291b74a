import { Injectable } from '@nestjs/common';
import { OutboundHttpClient } from '../../../common/outbound/outbound-http.client';
import { MediaFilesService } from '../../media/application/media-files.service';
import {
  gatewayAcceptsMediaUrl,
  MAX_DATA_URI_BYTES,
  normalizeDataUri,
} from '../domain/gateway-media-rules';
import { documentFileName, isDataUri, mimeTypeFor } from '../domain/media-kind';
import type { CampaignMediaType } from '../domain/campaign.entity';
import type { FieldErrors } from './campaign-input';
import { mediaUrlProblem } from './media-url-probe';

/**
 * What campaign creation checks of its media, so that no contact fails on something the
 * gateway refuses: our own stored media must exist (they go out as bytes); any other URL must
 * pass the gateway's own URL rules, and what the gateway would fetch for it (the URL and every
 * redirect, see mediaUrlProblem) must resolve here and must not be a link-local or metadata
 * address (the gateway would fetch it for us); data URIs are normalized base64 of at most
 * 16 MB; a document must have a file name with an extension.
 */
@Injectable()
export class CampaignMediaCheck {
  constructor(
    private readonly files: MediaFilesService,
    private readonly outbound: OutboundHttpClient,
  ) {}

  /** The media as they will be stored (a normalized data URI), and any field errors. */
  async check(
    mediaUrl: string,
    mediaType: CampaignMediaType | null,
    fileName: string | undefined,
    errors: FieldErrors,
    fieldPrefix = '',
  ): Promise<string> {
    const found: FieldErrors = [];
    const media = isDataUri(mediaUrl)
      ? this.checkDataUri(mediaUrl, found)
      : await this.checkUrl(mediaUrl, found);
    if (
      mediaType === 'document' &&
      !documentFileName(media, fileName ?? null, mimeTypeFor(media, fileName))
    ) {
      found.push([
        'fileName',
        'informe o nome do arquivo com extensão (ex.: catalogo.pdf): o tipo do documento não pôde ser deduzido',
      ]);
    }
    errors.push(
      ...found.map(([field, message]): [string, string] => [`${fieldPrefix}${field}`, message]),
    );
    return media;
  }

  private checkDataUri(mediaUrl: string, errors: FieldErrors): string {
    const normalized = normalizeDataUri(mediaUrl);
    if (!normalized) {
      errors.push(['mediaUrl', 'o conteúdo do data URI não é base64 válido']);
      return mediaUrl;
    }
    if (normalized.bytes > MAX_DATA_URI_BYTES) {
      errors.push([
        'mediaUrl',
        'mídia em data URI pode ter no máximo 16 MB; envie por /media/upload',
      ]);
    }
    return normalized.dataUri;
  }

  private async checkUrl(mediaUrl: string, errors: FieldErrors): Promise<string> {
    const local = this.files.localFileOf(mediaUrl);
    if (local) {
      if (!(await this.files.exists(local))) {
        errors.push(['mediaUrl', 'arquivo de mídia não encontrado neste serviço']);
      }
      return mediaUrl;
    }
    if (!gatewayAcceptsMediaUrl(mediaUrl)) {
      errors.push([
        'mediaUrl',
        'o gateway recusaria esta URL: use uma URL pública http(s) com domínio completo, sem espaços, até 2083 caracteres',
      ]);
      return mediaUrl;
    }
    // A name that resolves only for the gateway is refused too: what cannot be checked here
    // could lead the gateway anywhere.
    const problem = await mediaUrlProblem(this.outbound, mediaUrl);
    if (problem) {
      errors.push(['mediaUrl', problem]);
    }
    return mediaUrl;
  }
}
