import { DomainError, InvalidInputError } from '../../../common/errors/domain-error';

/** 100 MB (docs/API-RULES.md §8), in bytes: 100 × 1024 × 1024. */
export const MAX_MEDIA_BYTES = 100 * 1024 * 1024;

export class MediaFileMissingError extends InvalidInputError {
  constructor(otherFields: readonly string[] = []) {
    super(
      'MEDIA.FILE_MISSING',
      otherFields.length > 0
        ? `O arquivo deve ser enviado no campo "file" (recebido: ${otherFields.map((f) => `"${f}"`).join(', ')})`
        : 'O campo "file" é obrigatório: envie o arquivo em multipart/form-data',
    );
  }
}

export class MediaNotMultipartError extends InvalidInputError {
  constructor() {
    super('MEDIA.NOT_MULTIPART', 'Envie o arquivo em multipart/form-data, no campo "file"');
  }
}

export class MediaMalformedMultipartError extends InvalidInputError {
  constructor() {
    super('MEDIA.MALFORMED_MULTIPART', 'Corpo multipart/form-data malformado ou incompleto');
  }
}

export class MediaKindNotAcceptedError extends InvalidInputError {
  constructor(extension: string | null, accepted: readonly string[]) {
    super(
      'MEDIA.KIND_NOT_ACCEPTED',
      `${extension ? `Tipo de arquivo .${extension} não aceito` : 'O nome do arquivo não tem extensão'}; ` +
        `tipos aceitos: ${accepted.join(', ')}`,
    );
  }
}

export class MediaContentMismatchError extends InvalidInputError {
  constructor(extension: string, detected: string | null) {
    super(
      'MEDIA.CONTENT_MISMATCH',
      `O conteúdo do arquivo não corresponde à extensão .${extension} ` +
        (detected ? `(conteúdo detectado: ${detected})` : '(conteúdo não reconhecido)'),
    );
  }
}

export class MediaTooLargeError extends DomainError {
  constructor(maxBytes: number) {
    super(
      'MEDIA.TOO_LARGE',
      'payload_too_large',
      `Arquivo grande demais: o limite é de ${Math.round(maxBytes / (1024 * 1024))} MB`,
    );
  }
}

export class MediaStorageFailedError extends DomainError {
  constructor() {
    super(
      'MEDIA.STORAGE_FAILED',
      'unavailable',
      'Não foi possível gravar o arquivo no armazenamento; tente novamente',
    );
  }
}

export class MediaFileNotFoundError extends DomainError {
  constructor() {
    super('MEDIA.FILE_NOT_FOUND', 'not_found', 'Arquivo não encontrado');
  }
}
