import { connectedConfig, phones, waitForCampaign } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { startCampaign, trackedConfig } from '../../support/gateway-events';
import type { TestCompany } from '../../support/test-app';

interface ContactRow {
  phone_number: string;
  name: string;
  status: string;
}

/** The contacts a campaign holds (a pool's: its senders'), in their order. */
async function contactsOf(campaignId: number): Promise<ContactRow[]> {
  const { rows } = await db().query<ContactRow>(
    `SELECT phone_number, name, status FROM campaign_contacts
      WHERE campaign_id IN (SELECT id FROM campaigns WHERE id = $1 OR pool_id = $1)
      ORDER BY id`,
    [campaignId],
  );
  return rows;
}

async function campaignCount(companyId: number): Promise<number> {
  const { rows } = await db().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM campaigns WHERE company_id = $1`,
    [companyId],
  );
  return rows[0].n;
}

async function keyOf(campaignId: number, phone: string): Promise<string> {
  const { rows } = await db().query<{ key: string }>(
    `SELECT gateway_message_id AS key FROM campaign_contacts WHERE campaign_id = $1 AND phone_number = $2`,
    [campaignId, phone],
  );
  return rows[0].key;
}

/**
 * POST /api/campaigns/{id}/duplicate against the fake gateway: a campaign whose contacts got
 * every kind of receipt, a reply, a refusal and a nack, copied in each mode.
 */
describe('a follow-up: a DRAFT copy of a campaign with some of its contacts', () => {
  const {
    fake,
    companies: [company, other],
  } = useE2eFixture({
    env: { CAMPAIGN_CREATIONS_PER_HOUR: '100' },
    companies: 2,
    publicBaseUrl: true,
    noRefusals: true,
    resetFake: true,
  });

  let [delivered, read, replied, silent, refused, nacked, blocked, optedOut] = phones(8, 2500);
  const phoneOf = (c: { phoneNumber: string }): string => c.phoneNumber;

  /** A completed campaign whose contacts ended each in one of the states the modes read. */
  async function mixedCampaign(owner: TestCompany): Promise<{ id: number; configId: number }> {
    const config = await trackedConfig(owner, fake);
    fake.refuseNumber(refused.phoneNumber);
    const campaign = await startCampaign(owner, config.id, {
      name: 'Oferta de novembro',
      description: 'Clientes da loja',
      message: 'Olá {PrimeiroNome}, temos novidades',
      contacts: [delivered, read, replied, silent, refused, nacked, blocked, optedOut],
      intervalMinSeconds: 0,
      intervalMaxSeconds: 1,
      notificationPhone: '11987654321',
      longPauseEvery: 50,
      longPauseSeconds: [60, 120],
      sendingWindow: {
        days: [1, 2, 3, 4, 5, 6, 7],
        start: '00:00',
        end: '23:59',
        timezone: 'America/Sao_Paulo',
      },
    });
    await waitForCampaign(owner, campaign.id, (x) => x.status === 'COMPLETED');
    const at = (phone: { phoneNumber: string }): Promise<string> =>
      keyOf(campaign.id, phone.phoneNumber);
    await fake.emitReceipt(config.instance, await at(delivered), 'DELIVERY_ACK');
    await fake.emitReceipt(config.instance, await at(read), 'DELIVERY_ACK');
    await fake.emitReceipt(config.instance, await at(read), 'READ');
    await fake.emitNack(config.instance, await at(nacked));
    await fake.emitInbound(config.instance, {
      from: replied.phoneNumber,
      text: 'Quero saber mais',
    });
    await fake.emitInbound(config.instance, { from: optedOut.phoneNumber, text: 'SAIR' });
    await waitForCampaign(
      owner,
      campaign.id,
      (x) =>
        x.deliveredContacts === 2 &&
        x.readContacts === 1 &&
        x.failedContacts === 2 &&
        x.repliedContacts >= 1 &&
        x.optedOutContacts === 1,
    );
    await owner
      .post(`/api/companies/${owner.id}/blocked-contacts/import`, {
        phoneNumbers: [blocked.phoneNumber],
      })
      .expect(200);
    return { id: campaign.id, configId: config.id };
  }

  it('copies in each mode exactly the contacts it names, leaving out and counting the numbers blocked or opted out since', async () => {
    const original = await mixedCampaign(company);
    const { rows: states } = await db().query(
      `SELECT phone_number, status, failure_kind, replied_at IS NOT NULL AS replied
         FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
      [original.id],
    );
    // The opt-out answer is a reply too: it is left out wherever it would be copied.
    const optOutReplied = states.find((s) => s.phone_number === optedOut.phoneNumber).replied;
    expect(states.map((s) => [s.status, s.failure_kind])).toEqual([
      ['SENT', null],
      ['SENT', null],
      ['SENT', null],
      ['SENT', null],
      ['FAILED', 'refused_number'],
      ['FAILED', 'not_delivered'],
      ['SENT', null],
      ['SENT', null],
    ]);

    const expected: Record<string, { copied: string[]; blocked: number; optedOut: number }> = {
      ALL: {
        copied: [delivered, read, replied, silent, refused, nacked].map(phoneOf),
        blocked: 1,
        optedOut: 1,
      },
      FAILED: { copied: [refused, nacked].map(phoneOf), blocked: 0, optedOut: 0 },
      NOT_DELIVERED: { copied: [silent, nacked].map(phoneOf), blocked: 1, optedOut: 0 },
      NOT_READ: { copied: [delivered, silent].map(phoneOf), blocked: 1, optedOut: 0 },
      NOT_REPLIED: {
        copied: [delivered, read, silent].map(phoneOf),
        blocked: 1,
        optedOut: optOutReplied ? 0 : 1,
      },
    };
    for (const [mode, want] of Object.entries(expected)) {
      const copy = (
        await company
          .post(`/api/campaigns/${original.id}/duplicate`, { contacts: mode })
          .expect(201)
      ).body;
      const rows = await contactsOf(copy.id);
      expect({ mode, phones: rows.map((r) => r.phone_number) }).toEqual({
        mode,
        phones: want.copied,
      });
      expect(rows.every((r) => r.status === 'PENDING')).toBe(true);
      expect(copy).toMatchObject({
        status: 'DRAFT',
        totalContacts: want.copied.length,
        pendingContacts: want.copied.length,
        copiedContacts: want.copied.length,
        skippedContacts: { blocked: want.blocked, optedOut: want.optedOut },
        blockedContactsRemoved: want.blocked + want.optedOut,
      });
    }
  });

  it('is a DRAFT with the original’s message, numbers and settings, named after it, its contacts PENDING', async () => {
    // Numbers of their own: the first test blocked two of the company's.
    [delivered, read, replied, silent, refused, nacked, blocked, optedOut] = phones(8, 2550);
    const original = await mixedCampaign(company);
    const source = (await company.get(`/api/campaigns/${original.id}`).expect(200)).body;
    const copy = (
      await company
        .post(`/api/campaigns/${original.id}/duplicate`, { contacts: 'FAILED' })
        .expect(201)
    ).body;
    const same = [
      'description',
      'type',
      'messageContent',
      'message',
      'mediaType',
      'mediaUrl',
      'fileName',
      'gatewayInstance',
      'gatewayConfig',
      'minInterval',
      'maxInterval',
      'sendingWindow',
      'longPauseEvery',
      'longPauseSeconds',
      'notificationPhone',
      'warmFirst',
      'pollData',
      'isTest',
    ];
    for (const field of same) {
      expect({ field, value: copy[field] }).toEqual({ field, value: source[field] });
    }
    expect(copy).toMatchObject({
      name: 'Oferta de novembro (cópia)',
      status: 'DRAFT',
      scheduledFor: null,
      startedAt: null,
      sentContacts: 0,
      failedContacts: 0,
      deliveredContacts: 0,
    });
    expect((await company.get(`/api/campaigns/${copy.id}`).expect(200)).body).toMatchObject({
      id: copy.id,
      status: 'DRAFT',
      totalContacts: 2,
    });
    const named = (
      await company
        .post(`/api/campaigns/${original.id}/duplicate`, {
          contacts: 'ALL',
          name: '  Segunda chamada  ',
        })
        .expect(201)
    ).body;
    expect(named.name).toBe('Segunda chamada');
    expect((await contactsOf(copy.id)).map((r) => r.status)).toEqual(['PENDING', 'PENDING']);
  });

  it('cuts a long original name to fit the limit with “(cópia)”', async () => {
    const config = await trackedConfig(company, fake);
    const long = 'N'.repeat(100);
    const campaign = await startCampaign(company, config.id, {
      name: long,
      isDraft: true,
      contacts: phones(2, 2600),
    });
    const copy = (
      await company.post(`/api/campaigns/${campaign.id}/duplicate`, { contacts: 'ALL' }).expect(201)
    ).body;
    expect(copy.name).toBe(`${'N'.repeat(92)} (cópia)`);
    expect(copy.name).toHaveLength(100);
  });

  it('copies a pool as a pool on the same numbers, in the same order, each contact on one of them', async () => {
    const configs: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      configs.push((await connectedConfig(company, fake)).id);
    }
    const contacts = phones(30, 2700);
    const pool = (
      await company
        .post('/api/campaigns', {
          name: 'Pool de novembro',
          message: 'Olá {PrimeiroNome}',
          gatewayConfigIds: configs,
          intervalMinSeconds: 0,
          intervalMaxSeconds: 0,
          contacts,
        })
        .expect(200)
    ).body;
    await waitForCampaign(company, pool.id, (x) => x.status === 'COMPLETED');
    const copy = (
      await company
        .post(`/api/campaigns/${pool.id}/duplicate`, { contacts: 'NOT_READ' })
        .expect(201)
    ).body;
    expect(copy.status).toBe('DRAFT');
    expect(copy.senders.map((s: { gatewayConfigId: number }) => s.gatewayConfigId)).toEqual(
      configs,
    );
    expect(copy.totalContacts).toBe(30);
    const { rows } = await db().query(
      `SELECT s.gateway_config_id AS config, count(c.id)::int AS n, bool_and(c.status = 'PENDING') AS pending
         FROM campaigns s JOIN campaign_contacts c ON c.campaign_id = s.id
        WHERE s.pool_id = $1 AND s.id <> $1 GROUP BY s.gateway_config_id`,
      [copy.id],
    );
    expect(rows.reduce((sum, row) => sum + row.n, 0)).toBe(30);
    expect(rows.every((row) => row.pending && configs.includes(row.config))).toBe(true);
    expect(new Set((await contactsOf(copy.id)).map((r) => r.phone_number))).toEqual(
      new Set(contacts.map(phoneOf)),
    );
    const { rows: poolRow } = await db().query(
      `SELECT pool_id, status, total_contacts FROM campaigns WHERE id = $1`,
      [copy.id],
    );
    expect(poolRow[0]).toEqual({ pool_id: copy.id, status: 'DRAFT', total_contacts: 30 });
  });

  it('answers 409 and creates nothing when no contact matches the mode', async () => {
    const config = await trackedConfig(company, fake);
    const draft = await startCampaign(company, config.id, {
      isDraft: true,
      contacts: phones(3, 2800),
    });
    const before = await campaignCount(company.id);
    const refusedCopy = await company
      .post(`/api/campaigns/${draft.id}/duplicate`, { contacts: 'FAILED' })
      .expect(409);
    expect(expectErrorBody(refusedCopy, 409)).toContain('FAILED');
    expect(await campaignCount(company.id)).toBe(before);
  });

  it('creates one copy for a request repeated with its Idempotency-Key', async () => {
    const config = await trackedConfig(company, fake);
    const draft = await startCampaign(company, config.id, {
      isDraft: true,
      contacts: phones(3, 2950),
    });
    const before = await campaignCount(company.id);
    const send = (): Promise<{ body: { id: number } }> =>
      company
        .post(`/api/campaigns/${draft.id}/duplicate`, { contacts: 'ALL' })
        .set('Idempotency-Key', `copy-${draft.id}`)
        .expect(201);
    const first = await send();
    const again = await send();
    expect(again.body.id).toBe(first.body.id);
    expect(await campaignCount(company.id)).toBe(before + 1);
  });

  it('refuses bad input, unknown campaigns and another company’s, changing nothing', async () => {
    const config = await trackedConfig(company, fake);
    const draft = await startCampaign(company, config.id, {
      isDraft: true,
      contacts: phones(3, 2900),
    });
    const path = `/api/campaigns/${draft.id}/duplicate`;
    const before = await campaignCount(company.id);
    const bad: Array<[unknown, string]> = [
      [{ contacts: 'UNREAD' }, 'contacts'],
      [{}, 'contacts'],
      [{ contacts: 7 }, 'contacts'],
      [{ contacts: 'ALL', name: 'N'.repeat(101) }, 'name'],
      [{ contacts: 'ALL', name: 42 }, 'name'],
      [{ contacts: 'ALL', name: ' ' }, 'name'],
    ];
    for (const [body, field] of bad) {
      const response = await company.post(path, body);
      expect(expectErrorBody(response, 400, path)).toContain(field);
    }
    expectErrorBody(
      await company.post('/api/campaigns/999999999/duplicate', { contacts: 'ALL' }),
      404,
    );
    expectErrorBody(await other.post(path, { contacts: 'ALL' }), 403);
    expect(await campaignCount(company.id)).toBe(before);
    expect(await campaignCount(other.id)).toBe(0);
    expect(await contactsOf(draft.id)).toHaveLength(3);
  });
});
