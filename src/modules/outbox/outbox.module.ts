import { Module } from '@nestjs/common';
import { OutboxWriter } from './application/ports/outbox.writer';
import { PgOutboxWriter } from './infrastructure/outbox.writer';
import { outboxEventsRetention } from './infrastructure/outbox-events.retention';

@Module({
  providers: [{ provide: OutboxWriter, useClass: PgOutboxWriter }, outboxEventsRetention],
  exports: [OutboxWriter],
})
export class OutboxModule {}
