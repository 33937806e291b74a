import {
  InvalidInputError,
  NotFoundError,
  ValidationFailedError,
} from '../../../common/errors/domain-error';

export class PhoneAlreadyBlockedError extends InvalidInputError {
  constructor() {
    super('BLOCKLIST.ALREADY_BLOCKED', 'Este número já está bloqueado');
  }
}

export class PhoneNotBlockedError extends NotFoundError {
  constructor() {
    super('BLOCKLIST.NOT_BLOCKED', 'Este número não está bloqueado');
  }
}

export class InvalidPhoneNumberError extends ValidationFailedError {
  constructor() {
    super([['phoneNumber', INVALID_PHONE_REASON]]);
  }
}

/** Also the reason an import reports for each number it could not read. */
export const INVALID_PHONE_REASON = 'número de telefone inválido';
