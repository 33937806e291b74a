import {
  DomainError,
  InvalidInputError,
  RateLimitedError,
} from '../../../common/errors/domain-error';

export class EmailAlreadyRegisteredError extends InvalidInputError {
  constructor() {
    super('COMPANY.EMAIL_TAKEN', 'E-mail já cadastrado');
  }
}

export class WrongCredentialsError extends InvalidInputError {
  constructor() {
    super('AUTH.WRONG_CREDENTIALS', 'E-mail ou senha inválidos');
  }
}

export class CompanyDeactivatedError extends InvalidInputError {
  constructor() {
    super('AUTH.COMPANY_DEACTIVATED', 'Conta desativada; fale com o suporte');
  }
}

export class TooManyFailedLoginsError extends RateLimitedError {
  constructor(retryAfterSeconds: number) {
    super(
      'AUTH.TOO_MANY_FAILED_LOGINS',
      'Muitas tentativas de login sem sucesso; tente novamente mais tarde',
      retryAfterSeconds,
    );
  }
}

export class CompanyNotFoundError extends DomainError {
  constructor() {
    super('COMPANY.NOT_FOUND', 'not_found', 'Empresa não encontrada');
  }
}
