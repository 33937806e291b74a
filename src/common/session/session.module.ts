import { DynamicModule, Global, Module, type Type } from '@nestjs/common';

/**
 * Makes the SessionLookup port (who is calling) available to the HTTP pipeline of the shared
 * kernel (rate limit, body limits, the access-token guard) and to every module. The kernel
 * knows no feature module: the composition root passes the module that binds the port
 * (the auth module).
 */
@Global()
@Module({})
export class SessionModule {
  static boundBy(bindingModule: Type<unknown>): DynamicModule {
    // Nest re-exports modules, not single providers of an imported module: the binding
    // module's exports become visible everywhere, which is why it should export little.
    return { module: SessionModule, imports: [bindingModule], exports: [bindingModule] };
  }
}
