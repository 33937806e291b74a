import { DECORATORS } from '@nestjs/swagger';

/**
 * Describes a route as taking no credential: `security: []`, OpenAPI's way to say so (without
 * it, a reader cannot tell a public route from one whose requirement was forgotten). Nest drops
 * an empty requirement list given at method level, so there it goes into the operation itself,
 * merged with whatever @ApiOperation wrote (in either order).
 */
export function ApiNoSecurity(): MethodDecorator & ClassDecorator {
  const decorate = (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (!descriptor) {
      Reflect.defineMetadata(DECORATORS.API_SECURITY, [], target);
      return;
    }
    const handler = descriptor.value as object;
    const operation = (Reflect.getMetadata(DECORATORS.API_OPERATION, handler) ?? {}) as object;
    Reflect.defineMetadata(DECORATORS.API_OPERATION, { ...operation, security: [] }, handler);
  };
  return decorate;
}
