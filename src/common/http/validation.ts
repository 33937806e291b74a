import { applyDecorators, ValidationPipe } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min, ValidateIf, type ValidationError } from 'class-validator';
import { ValidationFailedError } from '../errors/domain-error';

/**
 * Class-validator's own wording for these constraints is English; DTOs give their own
 * Portuguese messages for everything else.
 */
const PORTUGUESE_BY_CONSTRAINT: Record<string, string> = {
  whitelistValidation: 'campo desconhecido',
  nestedValidation: 'deve ser um objeto válido',
  isDefined: 'é obrigatório',
  unknownValue: 'valor desconhecido',
};

/** English messages that Nest's ValidationPipe writes itself (a body that is not an object). */
const PORTUGUESE_BY_MESSAGE: Record<string, string> = {
  'Validation failed (object is expected)': 'deve ser um objeto JSON',
};

function joinPath(parent: string, property: string): string {
  if (/^\d+$/.test(property)) {
    return `${parent}[${property}]`;
  }
  return parent ? `${parent}.${property}` : property;
}

export function flattenValidationErrors(
  errors: ValidationError[],
  parent = '',
): Array<[field: string, message: string]> {
  const out: Array<[string, string]> = [];
  for (const error of errors) {
    const path = joinPath(parent, error.property);
    const constraints = Object.entries(error.constraints ?? {});
    if (constraints.length > 0) {
      // class-validator registers a property's decorators bottom-up, so the last constraint is the
      // decorator written first: the type check (@IsInt before @Min/@Max). When several fail, that
      // is the message that helps ("deve ser um número inteiro", not "deve ser no máximo 1000000" for "10").
      const [key, message] = constraints[constraints.length - 1];
      out.push([path, PORTUGUESE_BY_CONSTRAINT[key] ?? PORTUGUESE_BY_MESSAGE[message] ?? message]);
    }
    if (error.children?.length) {
      out.push(...flattenValidationErrors(error.children, path));
    }
  }
  return out;
}

/**
 * Like @IsOptional(), but only an absent field is skipped: an explicit null is validated like
 * any other value (and refused by @IsBoolean() and the like). For fields whose column is NOT NULL,
 * where @IsOptional() would let null through to the database.
 */
export const IsOmittable = (): PropertyDecorator =>
  ValidateIf((_object: object, value: unknown) => value !== undefined);

/** A required whole number within [min, max], described with its default (a setting). */
export function IntegerSetting(
  [min, max]: readonly [number, number],
  example: number,
  description: string,
): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ example, minimum: min, maximum: max, description }),
    IsInt({ message: 'deve ser um número inteiro' }),
    Min(min, { message: `deve ser no mínimo ${min}` }),
    Max(max, { message: `deve ser no máximo ${max}` }),
  );
}

/** What class-validator checks: unknown fields refused at any depth. */
export const VALIDATOR_OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: false },
} as const;

export function validationFailure(errors: ValidationError[]): ValidationFailedError {
  return new ValidationFailedError(flattenValidationErrors(errors));
}

/** The one validation pipe: unknown fields refused at any depth, Spring-style messages. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    ...VALIDATOR_OPTIONS,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: validationFailure,
  });
}
