import { GatewayModule } from '../gateway/gateway.module';
import { Module } from '@nestjs/common';
import { NoticeWorker } from './application/notice-worker';
import { NoticeQueue } from './application/ports/notice.queue';
import { PgNoticeQueue } from './infrastructure/notice.queue';
import { NoticesRepository } from './application/ports/notices.repository';
import { PgNoticesRepository } from './infrastructure/notices.repository';
import { noticesRetention } from './infrastructure/notices.retention';

@Module({
  imports: [GatewayModule],
  providers: [
    { provide: NoticeQueue, useClass: PgNoticeQueue },
    { provide: NoticesRepository, useClass: PgNoticesRepository },
    NoticeWorker,
    noticesRetention,
  ],
  exports: [NoticeQueue],
})
export class NoticesModule {}
