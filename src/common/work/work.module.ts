import { Global, Module } from '@nestjs/common';
import { WorkerContext } from './background-worker';
import { PgNotifications } from './pg-notifications';
import { WorkerLiveness } from './worker-liveness';

@Global()
@Module({
  providers: [PgNotifications, WorkerLiveness, WorkerContext],
  exports: [PgNotifications, WorkerLiveness, WorkerContext],
})
export class WorkModule {}
