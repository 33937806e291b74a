import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { queryMilliseconds, queryRows } from '../../../database/query-rows';
import {
  CAMPAIGN_CONTACT_LIFECYCLE,
  contactStatusesAllowing,
  UNFINISHED_CONTACT_STATUSES,
} from '../domain/campaign-contact-status';
import type { ContactFailureKind } from '../domain/contact-failure-kind';
import { DISPATCH_CHANNEL } from '../application/ports/dispatch-channel';
import { SENT_STAMP } from './system-contacts-feed.sql';

const DELIVER = CAMPAIGN_CONTACT_LIFECYCLE.sql('deliver');
const WRITE_OFF = CAMPAIGN_CONTACT_LIFECYCLE.sql('writeOff');
/** A written-off contact may have been sent: its kind keeps any retry away from it. */
const UNKNOWN_OUTCOME_KIND: ContactFailureKind = 'unknown_outcome';

/** How long one look may take before another worker may look again. */
const LOOK_LEASE_SECONDS = 120;

/** A contact whose send outcome is unknown, due for a look into the gateway's store. */
export interface UncertainContact {
  id: string;
  campaignId: number;
  companyId: number;
  gatewayConfigId: number;
  phoneNumber: string;
  sendingStartedAt: Date;
  /** Looks already taken (0 at the first). */
  attempts: number;
  /** The database clock now: the end of the window searched. */
  now: Date;
}

/**
 * The SQL of reconciliation: UNCERTAIN contacts are claimed with SKIP LOCKED, their
 * `reconcile_at` pushed forward as a lease, and resolved with the same guarded transitions and
 * in-statement counters as the engine's other outcomes.
 */
@Injectable()
export class ReconciliationRepository {
  constructor(private readonly dataSource: DataSource) {}

  async claimDue(limit: number): Promise<UncertainContact[]> {
    return queryRows<UncertainContact>(
      this.dataSource,
      `UPDATE campaign_contacts c SET reconcile_at = now() + make_interval(secs => $2)
         FROM (SELECT id FROM campaign_contacts
                WHERE status = 'UNCERTAIN' AND reconcile_at <= now()
                ORDER BY reconcile_at LIMIT $1 FOR UPDATE SKIP LOCKED) due,
              campaigns k
        WHERE c.id = due.id AND k.id = c.campaign_id
        RETURNING c.id, c.campaign_id AS "campaignId", c.company_id AS "companyId",
                  k.gateway_config_id AS "gatewayConfigId", c.phone_number AS "phoneNumber",
                  coalesce(c.sending_started_at, now()) AS "sendingStartedAt",
                  c.reconcile_attempts AS attempts, now() AS now`,
      [limit, LOOK_LEASE_SECONDS],
    );
  }

  /** Of these gateway message ids, the ones already recorded for some other contact. */
  async recordedMessageIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) {
      return new Set();
    }
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `SELECT gateway_message_id AS id FROM campaign_contacts WHERE gateway_message_id = ANY($1)`,
      [ids],
    );
    return new Set(rows.map((row) => row.id));
  }

  /**
   * Found in the gateway's store: SENT with its key id, counted, the campaign woken. False
   * when the contact was no longer UNCERTAIN (nothing moved).
   */
  async resolveAsSent(
    contact: UncertainContact,
    messageId: string,
    sentAt: Date,
  ): Promise<boolean> {
    const moved = await queryRows<{ id: number }>(
      this.dataSource,
      `WITH sent AS (
         UPDATE campaign_contacts SET status = ${DELIVER.to}, ${SENT_STAMP}, sent_at = $3, gateway_message_id = $2, reconcile_at = NULL
          WHERE id = $1 AND status = 'UNCERTAIN'
          RETURNING campaign_id)
       UPDATE campaigns SET sent_contacts = sent_contacts + 1, updated_at = now()
        WHERE id = (SELECT campaign_id FROM sent)
        RETURNING id`,
      [contact.id, messageId, sentAt],
    );
    await this.wakeIfSettled(contact.campaignId);
    return moved.length > 0;
  }

  /** Not found yet: look again `delayMs` after the send began. */
  async lookAgain(contact: UncertainContact, delayMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE campaign_contacts
          SET reconcile_attempts = reconcile_attempts + 1,
              reconcile_at = greatest(now(), coalesce(sending_started_at, now()) + make_interval(secs => $2::float / 1000))
        WHERE id = $1 AND status = 'UNCERTAIN'`,
      [contact.id, delayMs],
    );
  }

  /** Never found: FAILED with an unknown outcome, counted apart, never sent again. False: nothing moved. */
  async writeOff(contact: UncertainContact, reason: string): Promise<boolean> {
    const moved = await queryRows<{ id: number }>(
      this.dataSource,
      `WITH failed AS (
         UPDATE campaign_contacts SET status = ${WRITE_OFF.to}, failed_at = now(), failure_reason = left($2, 500),
                failure_kind = $4, reconcile_at = NULL, reconcile_attempts = reconcile_attempts + 1
          WHERE id = $1 AND status = ANY($3)
          RETURNING campaign_id)
       UPDATE campaigns SET failed_contacts = failed_contacts + 1,
              unknown_outcome_contacts = unknown_outcome_contacts + 1, updated_at = now()
        WHERE id = (SELECT campaign_id FROM failed)
        RETURNING id`,
      [contact.id, reason, contactStatusesAllowing('writeOff'), UNKNOWN_OUTCOME_KIND],
    );
    await this.wakeIfSettled(contact.campaignId);
    return moved.length > 0;
  }

  /**
   * An ACTIVE campaign whose last unfinished contact this was is due at once, so that a
   * worker completes it (with its events) instead of waiting for its next look. A campaign
   * with contacts still to send keeps its pacing.
   */
  private wakeIfSettled(campaignId: number): Promise<void> {
    return wakeSettledCampaigns(this.dataSource, [campaignId]);
  }

  async msUntilNextDue(): Promise<number | null> {
    const ms = await queryMilliseconds(
      this.dataSource,
      `SELECT extract(epoch FROM min(reconcile_at) - now()) * 1000 AS ms
         FROM campaign_contacts WHERE status = 'UNCERTAIN'`,
    );
    return ms === null ? null : Math.max(0, ms);
  }
}

/**
 * The ACTIVE campaigns among `campaignIds` left with no unfinished contact are due at once,
 * and the engine is woken, so that a worker completes them (with their events) instead of
 * waiting for their next look; a campaign with contacts still to send keeps its pacing. In a
 * transaction, the wake-up is heard when it commits.
 */
export async function wakeSettledCampaigns(
  runner: Transaction | DataSource,
  campaignIds: number[],
): Promise<void> {
  if (campaignIds.length === 0) {
    return;
  }
  const rows = await queryRows<{ id: number }>(
    runner,
    `UPDATE campaigns k SET next_send_at = now()
      WHERE k.id = ANY($1::int[]) AND k.status = 'ACTIVE'
        AND NOT EXISTS (SELECT 1 FROM campaign_contacts c
                         WHERE c.campaign_id = k.id AND c.status = ANY($2))
      RETURNING k.id`,
    [campaignIds, UNFINISHED_CONTACT_STATUSES],
  );
  if (rows.length > 0) {
    await queryRows(runner, `SELECT pg_notify($1, '')`, [DISPATCH_CHANNEL]);
  }
}
