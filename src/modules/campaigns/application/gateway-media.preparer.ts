import { Injectable } from '@nestjs/common';
import { MediaFilesService } from '../../media/application/media-files.service';
import type { OutgoingMessage } from '../../gateway/domain/messaging-gateway';
import { documentFileName } from '../domain/media-kind';

/**
 * Media stored by this service go to the gateway as their bytes (base64), never as their URL:
 * the gateway usually cannot reach this service (PUBLIC_BASE_URL is often localhost), and
 * Evolution API refuses a URL without a dotted public host name. Media in S3, and any other
 * URL, stay URLs.
 */
@Injectable()
export class GatewayMediaPreparer {
  constructor(private readonly files: MediaFilesService) {}

  async prepare(message: OutgoingMessage): Promise<OutgoingMessage> {
    switch (message.kind) {
      case 'media': {
        const local = this.files.localFileOf(message.media);
        if (!local) {
          return message;
        }
        const bytes = await this.files.read(local);
        const fileName =
          message.mediaType === 'document'
            ? (documentFileName(local.name, message.fileName ?? null, local.contentType) ??
              local.name)
            : message.fileName;
        return {
          ...message,
          media: bytes.toString('base64'),
          mimeType: local.contentType,
          fileName,
        };
      }
      case 'audio': {
        const local = this.files.localFileOf(message.audio);
        return local
          ? { ...message, audio: (await this.files.read(local)).toString('base64') }
          : message;
      }
      case 'text':
      case 'poll':
      case 'template':
        return message;
    }
  }
}
