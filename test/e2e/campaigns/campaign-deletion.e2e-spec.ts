import {
  campaignBody,
  connectedConfig,
  connectedInstance,
  phones,
  waitForCampaign,
} from '../../support/campaigns';
import { RetentionJobs } from '../../../src/common/retention/retention-jobs';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

/** The campaign's rows: its own and a pool's senders'. */
async function rowsOf(campaignId: number): Promise<Array<{ id: number; status: string }>> {
  const { rows } = await db().query(
    `SELECT id, status FROM campaigns WHERE id = $1 OR pool_id = $1 ORDER BY id`,
    [campaignId],
  );
  return rows;
}

async function contactCount(campaignIds: number[]): Promise<number> {
  const { rows } = await db().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM campaign_contacts WHERE campaign_id = ANY($1::int[])`,
    [campaignIds],
  );
  return rows[0].n;
}

/** Waits for the batches to have removed every contact of these campaign rows. */
async function contactsGone(campaignIds: number[]): Promise<void> {
  await until(
    () => contactCount(campaignIds),
    (n) => n === 0,
    30_000,
    `the contacts of ${campaignIds.join(', ')} removed`,
  );
}

async function deletionRow(campaignId: number): Promise<{ purged_at: Date | null } | undefined> {
  const { rows } = await db().query(
    `SELECT purged_at FROM campaign_deletions WHERE campaign_id = $1`,
    [campaignId],
  );
  return rows[0];
}

function localIn(minutes: number): string {
  // APP_TIMEZONE is America/Sao_Paulo (UTC-3, no daylight saving since 2019).
  return new Date(Date.now() + minutes * 60_000 - 3 * 3600_000).toISOString().slice(0, 19);
}

/**
 * DELETE /api/campaigns/{id}: a DRAFT or ended campaign disappears at once, its contacts in
 * batches after; one that may still send is refused and left as it was.
 */
describe('deleting a campaign', () => {
  const {
    t,
    fake,
    restart,
    companies: [company, other],
  } = useE2eFixture({
    env: { CAMPAIGN_CREATIONS_PER_HOUR: '100' },
    companies: 2,
    noRefusals: true,
    resetFake: true,
  });

  async function create(
    owner: TestCompany,
    overrides: Record<string, unknown>,
  ): Promise<{ id: number; gw: { instance: string; apiKey: string } }> {
    const gw = connectedInstance(fake);
    const body = (await owner.post('/api/campaigns', campaignBody(fake, gw, overrides)).expect(200))
      .body;
    return { id: body.id, gw };
  }

  async function expectGone(id: number): Promise<void> {
    await company.delete(`/api/campaigns/${id}`).expect(204);
    expectErrorBody(await company.get(`/api/campaigns/${id}`), 404);
    const listed = (await company.get('/api/campaigns').expect(200)).body;
    expect(listed.map((c: { id: number }) => c.id)).not.toContain(id);
    expect(await rowsOf(id)).toEqual([]);
    await contactsGone([id]);
  }

  it('deletes a DRAFT, a COMPLETED, a CANCELLED and a FAILED campaign with their contacts', async () => {
    const draft = await create(company, { isDraft: true, contacts: phones(3, 3000) });
    expect(await contactCount([draft.id])).toBe(3);
    await expectGone(draft.id);

    const completed = await create(company, { contacts: phones(3, 3010) });
    await waitForCampaign(company, completed.id, (c) => c.status === 'COMPLETED');
    await expectGone(completed.id);

    const cancelled = await create(company, {
      contacts: phones(3, 3020),
      scheduledFor: localIn(60),
    });
    await company.put(`/api/campaigns/${cancelled.id}/cancel`).expect(200);
    await expectGone(cancelled.id);

    const failing = await create(company, {
      contacts: phones(3, 3030),
      intervalMinSeconds: 1,
      intervalMaxSeconds: 1,
    });
    await fake.waitForSent(1);
    fake.removeInstance(failing.gw.instance);
    fake.addInstance(failing.gw.instance, { apiKey: 'rotated-key', state: 'open' });
    await waitForCampaign(company, failing.id, (c) => c.status === 'FAILED');
    await expectGone(failing.id);
  });

  it('refuses (409) a SCHEDULED, ACTIVE or PAUSED campaign, changing nothing', async () => {
    const scheduled = await create(company, {
      contacts: phones(2, 3100),
      scheduledFor: localIn(60),
    });
    const active = await create(company, {
      contacts: phones(3, 3110),
      intervalMinSeconds: 600,
      intervalMaxSeconds: 600,
    });
    await fake.waitForSent(1);
    const paused = await create(company, {
      contacts: phones(2, 3120),
      intervalMinSeconds: 600,
      intervalMaxSeconds: 600,
    });
    await company.put(`/api/campaigns/${paused.id}/pause`).expect(200);
    for (const [campaign, status] of [
      [scheduled, 'SCHEDULED'],
      [active, 'ACTIVE'],
      [paused, 'PAUSED'],
    ] as const) {
      const before = await contactCount([campaign.id]);
      const refused = await company.delete(`/api/campaigns/${campaign.id}`);
      expect(expectErrorBody(refused, 409, `/api/campaigns/${campaign.id}`)).toContain(status);
      expect((await company.get(`/api/campaigns/${campaign.id}`).expect(200)).body.status).toBe(
        status,
      );
      expect(await contactCount([campaign.id])).toBe(before);
    }
    await company.put(`/api/campaigns/${active.id}/cancel`).expect(200);
  });

  it('deletes a pool with its senders’ rows and their contacts', async () => {
    const configs: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      configs.push((await connectedConfig(company, fake)).id);
    }
    const pool = (
      await company
        .post('/api/campaigns', {
          name: 'Pool a excluir',
          message: 'Olá {PrimeiroNome}',
          gatewayConfigIds: configs,
          intervalMinSeconds: 0,
          intervalMaxSeconds: 0,
          contacts: phones(30, 3200),
        })
        .expect(200)
    ).body;
    await waitForCampaign(company, pool.id, (c) => c.status === 'COMPLETED');
    const rows = await rowsOf(pool.id);
    expect(rows).toHaveLength(4);
    expect(await contactCount(rows.map((r) => r.id))).toBe(30);
    await company.delete(`/api/campaigns/${pool.id}`).expect(204);
    expect(await rowsOf(pool.id)).toEqual([]);
    expectErrorBody(await company.get(`/api/campaigns/${pool.id}`), 404);
    await contactsGone(rows.map((r) => r.id));
  });

  it('keeps what the campaign counted elsewhere: the number’s sends of the day and its webhook events', async () => {
    const config = await connectedConfig(company, fake);
    const campaign = (
      await company
        .post('/api/campaigns', {
          ...campaignBody(fake, config.gw, { contacts: phones(4, 3300) }),
          gatewayConfigId: config.id,
          gatewayUrl: undefined,
          gatewayApiKey: undefined,
          gatewayInstance: undefined,
        })
        .expect(200)
    ).body;
    await waitForCampaign(company, campaign.id, (c) => c.status === 'COMPLETED');
    const usage = async (): Promise<number> => {
      const items: Array<{ gatewayConfigId: number; messagesToday: number }> = (
        await company.get('/api/gateway-configs/usage').expect(200)
      ).body;
      return items.find((item) => item.gatewayConfigId === config.id)?.messagesToday ?? -1;
    };
    expect(await usage()).toBe(4);
    const { rows: events } = await db().query(
      `SELECT id FROM outbox_events WHERE campaign_id = $1`,
      [campaign.id],
    );
    expect(events.length).toBeGreaterThan(0);

    await company.delete(`/api/campaigns/${campaign.id}`).expect(204);
    await contactsGone([campaign.id]);
    expect(await usage()).toBe(4);
    const { rows: eventsAfter } = await db().query(
      `SELECT id FROM outbox_events WHERE campaign_id = $1`,
      [campaign.id],
    );
    expect(eventsAfter).toEqual(events);
  });

  it('gives no creation of the hour back: a deleted campaign still counts in the limit', async () => {
    const owner = await TestCompany.register(t.http);
    await db().query(`UPDATE companies SET campaign_creations_per_hour = 2 WHERE id = $1`, [
      owner.id,
    ]);
    const first = await create(owner, { contacts: phones(2, 3700), scheduledFor: localIn(60) });
    await create(owner, { contacts: phones(2, 3710), scheduledFor: localIn(60) });
    await owner.put(`/api/campaigns/${first.id}/cancel`).expect(200);
    await owner.delete(`/api/campaigns/${first.id}`).expect(204);
    const refused = await owner.post(
      '/api/campaigns',
      campaignBody(fake, connectedInstance(fake), { contacts: phones(2, 3720) }),
    );
    expectErrorBody(refused, 429);
  });

  it('forgets a finished deletion a week later', async () => {
    const old = await create(company, { isDraft: true, contacts: phones(2, 3800) });
    await company.delete(`/api/campaigns/${old.id}`).expect(204);
    await contactsGone([old.id]);
    await until(
      async () => (await deletionRow(old.id))?.purged_at ?? null,
      (at) => at !== null,
    );
    await db().query(
      `UPDATE campaign_deletions SET deleted_at = now() - interval '8 days' WHERE campaign_id = $1`,
      [old.id],
    );
    await t.app.get(RetentionJobs).runOnce();
    expect(await deletionRow(old.id)).toBeUndefined();
  });

  it('waits (409) while a message of the campaign is still being confirmed with the gateway', async () => {
    const cancelled = await create(company, {
      contacts: phones(2, 3400),
      scheduledFor: localIn(60),
    });
    await company.put(`/api/campaigns/${cancelled.id}/cancel`).expect(200);
    await db().query(
      `UPDATE campaign_contacts SET status = 'UNCERTAIN' WHERE id =
         (SELECT min(id) FROM campaign_contacts WHERE campaign_id = $1)`,
      [cancelled.id],
    );
    const refused = await company.delete(`/api/campaigns/${cancelled.id}`);
    expect(expectErrorBody(refused, 409)).toContain('confirmadas');
    expect(await rowsOf(cancelled.id)).toHaveLength(1);
    expect(await contactCount([cancelled.id])).toBe(2);
  });

  it('refuses another company’s campaign (403), an unknown one (404) and a bad id (400), changing nothing', async () => {
    const draft = await create(company, { isDraft: true, contacts: phones(2, 3600) });
    expectErrorBody(await other.delete(`/api/campaigns/${draft.id}`), 403);
    expectErrorBody(await company.delete('/api/campaigns/999999999'), 404);
    expectErrorBody(await company.delete('/api/campaigns/abc'), 400);
    expect(await rowsOf(draft.id)).toHaveLength(1);
    expect(await contactCount([draft.id])).toBe(2);
    await company.delete(`/api/campaigns/${draft.id}`).expect(204);
    expectErrorBody(await company.delete(`/api/campaigns/${draft.id}`), 404);
  });

  // Last: the companies' agents talk to the app that the restart closes.
  it('finishes after a restart a deletion a crash left with its contacts', async () => {
    const draft = await create(company, { isDraft: true, contacts: phones(50, 3500) });
    // What a kill -9 right after the request's commit leaves: the campaign gone and queued,
    // every contact still there, nobody told.
    await db().query(
      `WITH queued AS (
         INSERT INTO campaign_deletions (campaign_id, company_id, status, created_at, counts_as_creation)
         SELECT id, company_id, status, created_at, true FROM campaigns WHERE id = $1)
       SELECT 1`,
      [draft.id],
    );
    await db().query(`DELETE FROM campaigns WHERE id = $1`, [draft.id]);
    expect(await contactCount([draft.id])).toBe(50);
    expectErrorBody(await company.get(`/api/campaigns/${draft.id}`), 404);
    await restart();
    await contactsGone([draft.id]);
    await until(
      async () =>
        (
          await db().query(`SELECT purged_at FROM campaign_deletions WHERE campaign_id = $1`, [
            draft.id,
          ])
        ).rows[0].purged_at,
      (at) => at !== null,
    );
  });
});

/**
 * The batches across a kill -9: the API runs here without background work (ROLE=api); the
 * contacts are removed by real service processes (ROLE=worker), the first killed mid-work.
 */
describe('deleting a campaign across a kill -9', () => {
  const { t, fake, pool, startWorker } = useE2eFixture({
    database: 'campaign_deletion_kill',
    role: 'api',
    env: { ENCRYPTION_KEY: 'campaign-deletion-e2e-encryption-key' },
  });

  async function left(campaignId: number): Promise<number> {
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM campaign_contacts WHERE campaign_id = $1`,
      [campaignId],
    );
    return rows[0].n;
  }

  it('answers before the contacts go, and a worker killed mid-batches leaves the rest to the next', async () => {
    const company = await TestCompany.register(t.http);
    const total = 30_000;
    const draft = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, connectedInstance(fake), {
            isDraft: true,
            contacts: phones(total, 10_000),
          }),
        )
        .expect(200)
    ).body;
    await company.delete(`/api/campaigns/${draft.id}`).expect(204);
    expectErrorBody(await company.get(`/api/campaigns/${draft.id}`), 404);
    // Nothing here removes contacts: the request did not wait for them.
    expect(await left(draft.id)).toBe(total);

    const first = await startWorker();
    await until(
      () => left(draft.id),
      (n) => n < total,
      30_000,
      'a first batch removed',
    );
    await first.kill9();
    await startWorker();
    await until(
      () => left(draft.id),
      (n) => n === 0,
      30_000,
      'every contact removed',
    );
    await until(
      async () =>
        (
          await pool.query(`SELECT purged_at FROM campaign_deletions WHERE campaign_id = $1`, [
            draft.id,
          ])
        ).rows[0].purged_at,
      (at) => at !== null,
    );
  });
});
