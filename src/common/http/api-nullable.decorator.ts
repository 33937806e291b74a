import type { Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  getSchemaPath,
  type ApiPropertyOptions,
} from '@nestjs/swagger';

/**
 * A property that holds an object of the given class, or null. Nest writes `nullable: true`
 * beside an `allOf` reference, but in OpenAPI 3.0 `nullable` only widens the `type` of its own
 * schema: the reference still refuses null, and validating clients reject the service's
 * answers. An explicit null branch says what the service sends.
 */
export function ApiNullableObject(
  type: Type,
  options: Omit<ApiPropertyOptions, 'type' | 'nullable'> = {},
): PropertyDecorator {
  return (target, key) => {
    // The referenced class is described only when something names it as a model.
    ApiExtraModels(type)(target.constructor);
    ApiProperty({
      ...options,
      oneOf: [{ $ref: getSchemaPath(type) }, { enum: [null] }],
    } as ApiPropertyOptions)(target, key);
  };
}
