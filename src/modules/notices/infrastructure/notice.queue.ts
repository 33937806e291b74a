import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { execute } from '../../../database/query-rows';
import { statusLiteral } from '../../../common/state/transition-table';
import { NoticeQueue, NoticeRequest } from '../application/ports/notice.queue';
import { NOTICE_QUEUED } from '../domain/notice-status';

@Injectable()
export class PgNoticeQueue implements NoticeQueue {
  async enqueue(tx: Transaction, notice: NoticeRequest): Promise<void> {
    await execute(
      tx,
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
    await execute(tx, `SELECT pg_notify('notices', '')`);
  }
}
