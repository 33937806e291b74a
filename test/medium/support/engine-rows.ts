import type { Pool } from 'pg';
import type { Delivery } from '../../../src/modules/campaigns/domain/dispatch-records';

let counter = 0;

/** A company, as the API would store it (only what the engine reads matters). */
export async function insertCompany(
  sql: Pool,
  values: { isActive?: boolean; autoPause?: object | null } = {},
): Promise<number> {
  counter += 1;
  const { rows } = await sql.query<{ id: number }>(
    `INSERT INTO companies (name, email, password_hash, registration_type, is_active, auto_pause,
                            created_at, updated_at)
     VALUES ('Empresa', $1, 'x', 'admin_password', $2, $3, now(), now()) RETURNING id`,
    [
      `engine-${process.pid}-${counter}@teste.com.br`,
      values.isActive ?? true,
      values.autoPause ?? null,
    ],
  );
  return rows[0].id;
}

/** A gateway configuration (an instance); `pacing` writes its instance_pacing row too. */
export async function insertInstance(
  sql: Pool,
  companyId: number,
  pacing?: { lastMessageSecondsAgo?: number; heldBy?: string; heldForSeconds?: number },
): Promise<number> {
  counter += 1;
  const { rows } = await sql.query<{ id: number }>(
    `INSERT INTO gateway_configs (company_id, name, url, api_key_encrypted, instance, created_at, updated_at)
     VALUES ($1, 'Gateway', 'http://127.0.0.1:9', 'x', $2, now(), now()) RETURNING id`,
    [companyId, `instance-${counter}`],
  );
  const id = rows[0].id;
  if (pacing) {
    await sql.query(
      `INSERT INTO instance_pacing (gateway_config_id, company_id, last_message_at, held_by, held_until)
       VALUES ($1, $2, coalesce(now() - make_interval(secs => $3::float), '-infinity'), $4,
               CASE WHEN $4::varchar IS NOT NULL THEN now() + make_interval(secs => $5::float) END)`,
      [
        id,
        companyId,
        pacing.lastMessageSecondsAgo ?? null,
        pacing.heldBy ?? null,
        pacing.heldForSeconds ?? 60,
      ],
    );
  }
  return id;
}

export interface CampaignRow {
  minInterval?: number;
  maxInterval?: number;
  contacts?: number;
  /** Seconds from now (negative: overdue). */
  dueInSeconds?: number;
  lockedBy?: string | null;
  lockedForSeconds?: number;
  longPauseEvery?: number | null;
  sentContacts?: number;
  lastTurnSecondsAgo?: number | null;
}

/** An ACTIVE text campaign on `gatewayConfigId`, with PENDING contacts. */
export async function insertCampaign(
  sql: Pool,
  companyId: number,
  gatewayConfigId: number,
  row: CampaignRow = {},
): Promise<number> {
  const contacts = row.contacts ?? 3;
  const { rows } = await sql.query<{ id: number }>(
    `INSERT INTO campaigns (company_id, name, status, type, message_content, gateway_config_id, gateway_name,
                            gateway_url, gateway_instance, min_interval, max_interval, total_contacts,
                            sent_contacts, next_send_at, locked_by, locked_until, long_pause_every,
                            long_pause_min, long_pause_max, started_at, last_turn_at, created_at, updated_at)
     VALUES ($1, 'Campanha', 'ACTIVE', 'TEXT', 'Olá', $2, 'Gateway', 'http://127.0.0.1:9', 'i', $3, $4, $5,
             $6, now() + make_interval(secs => $7::float), $8,
             CASE WHEN $8::varchar IS NOT NULL THEN now() + make_interval(secs => $9::float) END,
             $10, 30, 60, now(), now() - make_interval(secs => $11::float), now(), now())
     RETURNING id`,
    [
      companyId,
      gatewayConfigId,
      row.minInterval ?? 1,
      row.maxInterval ?? row.minInterval ?? 1,
      contacts + (row.sentContacts ?? 0),
      row.sentContacts ?? 0,
      row.dueInSeconds ?? -1,
      row.lockedBy ?? null,
      row.lockedForSeconds ?? 60,
      row.longPauseEvery ?? null,
      row.lastTurnSecondsAgo ?? null,
    ],
  );
  const id = rows[0].id;
  await sql.query(
    `INSERT INTO campaign_contacts (campaign_id, company_id, phone_number, name, status)
     SELECT $1, $2, '5511900' || lpad(($1 * 100 + k)::text, 6, '0'), 'Contato ' || k, 'PENDING'
       FROM generate_series(1, $3::int) k`,
    [id, companyId, contacts],
  );
  return id;
}

/** The columns of a campaign row the engine writes. */
export async function campaignState(
  sql: Pool,
  campaignId: number,
): Promise<Record<string, unknown>> {
  const { rows } = await sql.query(
    `SELECT status, locked_by AS "lockedBy", sent_contacts AS "sentContacts",
            failed_contacts AS "failedContacts", waiting_reason AS "waitingReason",
            send_failure_streak AS "sendFailureStreak", watched_sends AS "watchedSends",
            watched_refusals AS "watchedRefusals",
            extract(epoch FROM next_send_at - now())::float AS "nextSendInSeconds"
       FROM campaigns WHERE id = $1`,
    [campaignId],
  );
  return rows[0];
}

/** The statuses of a campaign's contacts, in id order. */
export async function contactStatuses(sql: Pool, campaignId: number): Promise<string[]> {
  const { rows } = await sql.query<{ status: string }>(
    `SELECT status FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
    [campaignId],
  );
  return rows.map((r) => r.status);
}

/** The instance's pacing row. */
export async function pacingState(
  sql: Pool,
  gatewayConfigId: number,
): Promise<Record<string, unknown>> {
  const { rows } = await sql.query(
    `SELECT held_by AS "heldBy", sent_on_day AS "sentOnDay",
            CASE WHEN last_message_at > '-infinity'
                 THEN extract(epoch FROM now() - last_message_at)::float END AS "quietForSeconds",
            pause_draw AS "pauseDraw", ready_at AS "readyAt"
       FROM instance_pacing WHERE gateway_config_id = $1`,
    [gatewayConfigId],
  );
  return rows[0];
}

/** A delivery of contact `contactId` that ends its turn, as the dispatcher decides one. */
export function deliveryOf(contactId: string, overrides: Partial<Delivery> = {}): Delivery {
  return {
    contactId,
    messageId: 'msg-1',
    text: 'Olá',
    pauseSeconds: 2,
    waitingReason: null,
    pauseDraw: 0.5,
    endsTurn: true,
    milestoneCount: 1000,
    turnMessages: 1,
    ...overrides,
  };
}
