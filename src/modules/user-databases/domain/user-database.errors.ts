import {
  DomainError,
  ForbiddenError,
  InvalidInputError,
} from '../../../common/errors/domain-error';
import type { ResourceKind } from '../../../common/tenancy/owned-resource';

export const USER_DATABASE: ResourceKind = {
  code: 'USER_DATABASE',
  notFoundMessage: 'Base de dados não encontrada',
};

export const USER_DATABASE_RECORD: ResourceKind = {
  code: 'USER_DATABASE_RECORD',
  notFoundMessage: 'Registro não encontrado',
};

/** The SYSTEM database is kept by the service: no writes, toggles or deletion by hand. */
export class SystemDatabaseReadOnlyError extends ForbiddenError {
  constructor() {
    super(
      'USER_DATABASE.SYSTEM_READ_ONLY',
      'A base "Contatos de campanhas" é mantida pelo serviço e não pode ser alterada',
    );
  }
}

export class DatabaseLimitReachedError extends InvalidInputError {
  constructor(limit: number) {
    super(
      'USER_DATABASE.LIMIT_REACHED',
      `Limite de bases de dados do plano atingido (${limit}); exclua uma base para criar outra`,
    );
  }
}

export class StatusToggleNotAllowedError extends InvalidInputError {
  constructor(status: string) {
    super(
      'USER_DATABASE.TOGGLE_NOT_ALLOWED',
      `Só bases ACTIVE ou INACTIVE podem alternar o status (status atual: ${status})`,
    );
  }
}

export class DatabaseNotUsableError extends InvalidInputError {
  constructor(reason: string) {
    super('USER_DATABASE.NOT_USABLE', reason);
  }
}

export class UploadTooLargeError extends DomainError {
  constructor(limitBytes: number) {
    super(
      'UPLOAD.TOO_LARGE',
      'payload_too_large',
      `Arquivo grande demais: o limite é ${Math.round(limitBytes / (1024 * 1024))} MB`,
    );
  }
}

/** A file that cannot be read as the CSV or XLSX it claims to be, or that breaks a limit. */
export class UnreadableFileError extends InvalidInputError {
  constructor(message: string) {
    super('UPLOAD.UNREADABLE', message);
  }
}
