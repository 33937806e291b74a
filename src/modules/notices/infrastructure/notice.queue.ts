import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { statusLiteral } from '../../../common/state/transition-table';
import { NoticeQueue, NoticeRequest } from '../application/ports/notice.queue';
import { NOTICE_QUEUED } from '../domain/notice-status';

/** Notices are rows written with the state change that causes them; the notice worker sends them. */
@Injectable()
export class PgNoticeQueue implements NoticeQueue {
  async enqueue(manager: EntityManager, notice: NoticeRequest): Promise<void> {
    await manager.query(
      `INSERT INTO notices (company_id, gateway_config_id, phone_number, text, reason, dedup_key, status)
       VALUES ($1, $2, $3, $4, $5, $6, ${statusLiteral(NOTICE_QUEUED)})
       ON CONFLICT (company_id, dedup_key) WHERE dedup_key IS NOT NULL DO NOTHING`,
      [
        notice.companyId,
        notice.gatewayConfigId,
        notice.phoneNumber,
        notice.text,
        notice.reason,
        notice.dedupKey,
      ],
    );
    await manager.query(`SELECT pg_notify('notices', '')`);
  }
}
