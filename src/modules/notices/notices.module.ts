import { GatewayModule } from '../gateway/gateway.module';
import { Module } from '@nestjs/common';
import { NoticeWorker } from './application/notice-worker';
import { NoticeQueue } from './application/ports/notice.queue';
import { PgNoticeQueue } from './infrastructure/notice.queue';
import { NoticesRepository } from './infrastructure/notices.repository';
import { noticesRetention } from './infrastructure/notices.retention';

@Module({
  imports: [GatewayModule],
  providers: [
    { provide: NoticeQueue, useClass: PgNoticeQueue },
    NoticesRepository,
    NoticeWorker,
    noticesRetention,
  ],
  exports: [NoticeQueue],
})
export class NoticesModule {}
