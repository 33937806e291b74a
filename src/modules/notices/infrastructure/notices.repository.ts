import { Injectable } from '@nestjs/common';
import { countUpTo, queryMilliseconds, queryRows } from '../../../database/query-rows';
import { DataSource } from 'typeorm';
import { NOTICE_LIFECYCLE } from '../domain/notice-status';

const LEASE_SECONDS = 120;

export interface ClaimedNotice {
  id: string;
  companyId: number;
  gatewayConfigId: number;
  phoneNumber: string;
  text: string;
  attempts: number;
}

/** Each move as the notice's transition table has it (SQL literals from the table, never input). */
const MOVE = {
  take: NOTICE_LIFECYCLE.sql('take'),
  deliver: NOTICE_LIFECYCLE.sql('deliver'),
  fail: NOTICE_LIFECYCLE.sql('fail'),
  retry: NOTICE_LIFECYCLE.sql('retry'),
};

@Injectable()
export class NoticesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Claims due notices and marks them SENDING in one statement. A notice found SENDING after
   * its lease ran out may have gone out: it is failed, never resent.
   */
  async claimDue(limit: number): Promise<ClaimedNotice[]> {
    await this.dataSource.query(
      `UPDATE notices SET status = ${MOVE.fail.to}, last_error = 'envio interrompido'
        WHERE status IN (${MOVE.fail.from}) AND locked_until < now()`,
    );
    return queryRows(
      this.dataSource,
      `UPDATE notices SET status = ${MOVE.take.to}, attempts = attempts + 1,
              locked_until = now() + make_interval(secs => $2)
        WHERE id IN (SELECT id FROM notices WHERE status IN (${MOVE.take.from}) AND next_attempt_at <= now()
                      ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, company_id AS "companyId", gateway_config_id AS "gatewayConfigId",
                  phone_number AS "phoneNumber", text, attempts`,
      [limit, LEASE_SECONDS],
    );
  }

  async markSent(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE notices SET status = ${MOVE.deliver.to}, sent_at = now(), locked_until = NULL
        WHERE id = $1 AND status IN (${MOVE.deliver.from})`,
      [id],
    );
  }

  async markFailed(id: string, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE notices SET status = ${MOVE.fail.to}, last_error = left($2, 500), locked_until = NULL
        WHERE id = $1 AND status IN (${MOVE.fail.from})`,
      [id, error],
    );
  }

  async retryLater(id: string, at: Date, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE notices SET status = ${MOVE.retry.to}, next_attempt_at = $2, last_error = left($3, 500), locked_until = NULL
        WHERE id = $1 AND status IN (${MOVE.retry.from})`,
      [id, at, error],
    );
  }

  /** Back to the queue until `at`, its instance's next slot: no attempt was made. */
  async waitForSlot(id: string, at: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE notices SET status = ${MOVE.retry.to}, next_attempt_at = $2, attempts = attempts - 1, locked_until = NULL
        WHERE id = $1 AND status IN (${MOVE.retry.from})`,
      [id, at],
    );
  }

  /** For the metrics: PENDING notices due now, counted up to `cap` over the due index. */
  countDue(cap: number): Promise<number> {
    return countUpTo(
      this.dataSource,
      `SELECT 1 FROM notices WHERE status = 'PENDING' AND next_attempt_at <= now()`,
      cap,
    );
  }

  async msUntilNextDue(): Promise<number | null> {
    return queryMilliseconds(
      this.dataSource,
      `SELECT extract(epoch FROM min(next_attempt_at) - now()) * 1000 AS ms FROM notices WHERE status = 'PENDING'`,
    );
  }
}
