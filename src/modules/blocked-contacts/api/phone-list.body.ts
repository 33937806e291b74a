import { ValidationFailedError } from '../../../common/errors/domain-error';
import { MAX_NUMBERS_PER_REQUEST, MAX_PHONE_INPUT_LENGTH } from './blocked-contacts.dto';

/** Enough to point at the problem without a message of a thousand entries. */
const MAX_REPORTED_ITEMS = 10;

/**
 * The check body is a top-level JSON array, which the DTO validation pipe cannot describe,
 * so it is read here, with the same `{field=texto}` message.
 */
export function parsePhoneListBody(body: unknown): string[] {
  if (!Array.isArray(body)) {
    throw new ValidationFailedError([['body', 'deve ser uma lista JSON de números de telefone']]);
  }
  if (body.length > MAX_NUMBERS_PER_REQUEST) {
    throw new ValidationFailedError([
      ['body', `deve ter no máximo ${MAX_NUMBERS_PER_REQUEST} números`],
    ]);
  }
  const itemErrors = body.flatMap((item: unknown, index): Array<[string, string]> => {
    if (typeof item !== 'string') {
      return [[`[${index}]`, 'deve ser um texto']];
    }
    if (item.length > MAX_PHONE_INPUT_LENGTH) {
      return [[`[${index}]`, `deve ter no máximo ${MAX_PHONE_INPUT_LENGTH} caracteres`]];
    }
    return [];
  });
  if (itemErrors.length > 0) {
    throw new ValidationFailedError(itemErrors.slice(0, MAX_REPORTED_ITEMS));
  }
  return body as string[];
}
