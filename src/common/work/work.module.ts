import { Global, Module } from '@nestjs/common';
import { PgNotifications } from './pg-notifications';
import { WorkerLiveness } from './worker-liveness';

@Global()
@Module({
  providers: [PgNotifications, WorkerLiveness],
  exports: [PgNotifications, WorkerLiveness],
})
export class WorkModule {}
