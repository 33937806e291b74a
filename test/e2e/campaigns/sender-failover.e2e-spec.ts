import { phones, waitForCampaign } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import type { FakeEvolutionApi } from '../../support/fake-evolution-api';
import { trackedConfig } from '../../support/gateway-events';
import { TestCompany } from '../../support/test-app';
import { sleep, until } from '../../support/waiting';

type Sender = { id: number; instance: string; apiKey: string };

/** The campaigns' notification phone: its notices are not campaign messages. */
const NOTIFICATION_PHONE = '5511999990000';

/** How many campaign messages each phone got: a contact sent twice shows as 2. */
function messagesPerPhone(fake: FakeEvolutionApi): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of fake.sent.filter((m) => !m.number.includes(NOTIFICATION_PHONE))) {
    const phone = message.number.replace(/\D/g, '');
    counts.set(phone, (counts.get(phone) ?? 0) + 1);
  }
  return counts;
}

function sentBy(fake: FakeEvolutionApi, sender: Sender): number {
  return fake.sent.filter((m) => m.instance === sender.instance).length;
}

/** Every contact got exactly one message. */
function expectEveryoneOnce(
  fake: FakeEvolutionApi,
  contacts: Array<{ phoneNumber: string }>,
): void {
  const counts = messagesPerPhone(fake);
  expect([...counts.keys()].sort()).toEqual(contacts.map((c) => c.phoneNumber).sort());
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
}

async function senderLostEvents(campaignId: number): Promise<Array<Record<string, any>>> {
  const { rows } = await db().query<{ payload: Record<string, any> }>(
    `SELECT payload FROM outbox_events WHERE event_type = 'campaign.sender_lost' AND campaign_id = $1 ORDER BY id`,
    [campaignId],
  );
  return rows.map((row) => row.payload);
}

describe('a pool campaign that loses a number', () => {
  const { t, fake } = useE2eFixture({
    publicBaseUrl: true,
    noRefusals: true,
    resetFake: true,
    env: { CAMPAIGN_CREATIONS_PER_HOUR: '100' },
  });
  let company: TestCompany;

  beforeEach(async () => {
    company = await TestCompany.register(t.http);
  });

  async function poolOfThree(): Promise<Sender[]> {
    const senders: Sender[] = [];
    for (let i = 0; i < 3; i += 1) {
      senders.push(await trackedConfig(company, fake));
    }
    return senders;
  }

  async function startPool(
    senders: Sender[],
    contacts: Array<{ phoneNumber: string; name: string }>,
  ): Promise<number> {
    const created = await company
      .post('/api/campaigns', {
        name: 'Pool',
        message: 'Olá {PrimeiroNome}',
        gatewayConfigIds: senders.map((s) => s.id),
        notificationPhone: '11999990000',
        intervalMinSeconds: 1,
        intervalMaxSeconds: 1,
        contacts,
      })
      .expect(200);
    return created.body.id as number;
  }

  /** Each sender has sent at least `count` messages. */
  async function eachSent(senders: Sender[], count: number): Promise<void> {
    await until(
      () => Promise.resolve(senders.map((s) => sentBy(fake, s))),
      (sent) => sent.every((n) => n >= count),
      20_000,
      `${count} sends from every number`,
    );
  }

  /** The number leaves its WhatsApp account: the gateway says so, and its sends fail from then on. */
  async function logOut(sender: Sender): Promise<void> {
    fake.setState(sender.instance, 'close');
    await fake.emit(sender.instance, 'connection.update', {
      instance: sender.instance,
      state: 'close',
      statusReason: 401,
    });
  }

  it("moves a logged-out number's pending contacts to the others: everyone once, the event and the notice sent", async () => {
    const senders = await poolOfThree();
    const contacts = phones(24, 100);
    const id = await startPool(senders, contacts);
    await eachSent(senders, 1);
    await logOut(senders[0]);
    const lost = await waitForCampaign(company, id, (c) => c.senders[0].state === 'LOST', 15_000);
    expect(lost.senders[0].lostReason).toMatch(/logout/);
    const atLoss = sentBy(fake, senders[0]);
    const done = await waitForCampaign(company, id, (c) => c.status === 'COMPLETED', 60_000);
    // At most the send it had begun went out after the loss.
    expect(sentBy(fake, senders[0])).toBeLessThanOrEqual(atLoss + 1);
    expectEveryoneOnce(fake, contacts);
    expect(done.sentContacts).toBe(24);
    expect(done.senders.map((s: { state: string }) => s.state)).toEqual(['LOST', 'DONE', 'DONE']);
    const [event] = await senderLostEvents(id);
    expect(event).toMatchObject({
      event: 'campaign.sender_lost',
      campaignId: id,
      sender: { gatewayConfigId: senders[0].id, instance: senders[0].instance },
      sendersLeft: 2,
    });
    expect(event.movedContacts).toBeGreaterThan(0);
    const notices = await db().query(
      `SELECT text FROM notices WHERE reason = 'sender_lost' AND company_id = $1`,
      [company.id],
    );
    expect(notices.rows).toHaveLength(1);
    expect(notices.rows[0].text).toContain(senders[0].instance);
  });

  it('moves the contacts of a number whose key the gateway refuses (401)', async () => {
    const senders = await poolOfThree();
    const contacts = phones(18, 200);
    const id = await startPool(senders, contacts);
    await eachSent(senders, 1);
    // Someone rotated the instance's key on the gateway: every send of ours answers 401.
    fake.addInstance(senders[1].instance, { apiKey: 'rotated-elsewhere', state: 'open' });
    const done = await waitForCampaign(company, id, (c) => c.status === 'COMPLETED', 60_000);
    expectEveryoneOnce(fake, contacts);
    expect(done.senders[1].state).toBe('LOST');
    expect(done.senders[1].lostReason).toMatch(/chave de API/);
    expect(await senderLostEvents(id)).toHaveLength(1);
  });

  it("moves a locked number's cold contacts and keeps its warm ones, until the lock is lifted", async () => {
    const senders = await poolOfThree();
    const contacts = phones(36, 300);
    // Two people talked with the first number lately: they stay on it whatever its lock.
    for (const contact of contacts.slice(0, 2)) {
      await fake.emitInbound(senders[0].instance, { from: contact.phoneNumber, text: 'oi' });
    }
    await until(
      async () =>
        (
          await db().query<{ n: number }>(
            `SELECT count(*)::int AS n FROM contact_conversations WHERE gateway_config_id = $1`,
            [senders[0].id],
          )
        ).rows[0].n,
      (n) => n === 2,
      10_000,
      'the conversations recorded',
    );
    const id = await startPool(senders, contacts);
    // WhatsApp refuses a message to a cold contact (a refused warm one would lock everything).
    const talked = contacts.slice(0, 2).map((c) => c.phoneNumber);
    const ofFirst = await until(
      () =>
        Promise.resolve(
          fake.sent.find(
            (m) => m.instance === senders[0].instance && !talked.some((p) => m.number.includes(p)),
          ),
        ),
      Boolean,
      15_000,
      'a send of the first number to a cold contact',
    );
    await fake.emitNack(senders[0].instance, ofFirst!.messageId, {
      code: '463',
      forwardStubParameters: true,
    });
    const lost = await waitForCampaign(company, id, (c) => c.senders[0].state === 'LOST', 15_000);
    expect(lost.senders[0].lostReason).toMatch(/463/);
    // Its cold contacts went to the others; its warm people stay with it.
    const stayed = await contactsOf(id, senders[0].id);
    expect(stayed.filter((c) => c.status === 'PENDING' && !c.warm)).toEqual([]);
    for (const phone of talked) {
      expect(stayed.map((c) => c.phone_number)).toContain(phone);
    }

    // A person lifts the lock while the campaign goes on: the number takes its share again.
    await company.delete(`/api/gateway-configs/${senders[0].id}/restriction`).expect(204);
    const back = await waitForCampaign(company, id, (c) => c.senders[0].state !== 'LOST', 15_000);
    expect(back.senders[0].lostReason).toBeNull();
    const done = await waitForCampaign(company, id, (c) => c.status === 'COMPLETED', 60_000);
    expect(done.sentContacts + done.failedContacts).toBe(36);
    expect(done.failedContacts).toBeLessThanOrEqual(1);
    expectEveryoneOnce(fake, contacts);
  });

  async function contactsOf(
    poolId: number,
    gatewayConfigId: number,
  ): Promise<Array<{ phone_number: string; status: string; warm: boolean }>> {
    const { rows } = await db().query<{ phone_number: string; status: string; warm: boolean }>(
      `SELECT c.phone_number, c.status, c.warm FROM campaign_contacts c JOIN campaigns s ON s.id = c.campaign_id
        WHERE s.pool_id = $1 AND s.gateway_config_id = $2`,
      [poolId, gatewayConfigId],
    );
    return rows;
  }

  it('pauses when every number is lost, and resumes when one comes back', async () => {
    const senders = await poolOfThree();
    const contacts = phones(30, 400);
    const id = await startPool(senders, contacts);
    await eachSent(senders, 1);
    for (const sender of senders) {
      await logOut(sender);
    }
    const paused = await waitForCampaign(company, id, (c) => c.status === 'PAUSED', 20_000);
    expect(paused.pauseReason).toMatch(/Nenhum número/);
    const atPause = fake.sent.length;
    await sleep(2_500);
    expect(fake.sent.length).toBeLessThanOrEqual(atPause + 3);
    const held = fake.sent.length;

    // The second number reconnects: the gateway says so.
    fake.setState(senders[1].instance, 'open');
    await fake.emit(senders[1].instance, 'connection.update', {
      instance: senders[1].instance,
      state: 'open',
    });
    const resumed = await waitForCampaign(company, id, (c) => c.status !== 'PAUSED', 20_000);
    expect(resumed.senders[1].state).not.toBe('LOST');
    const done = await waitForCampaign(company, id, (c) => c.status === 'COMPLETED', 90_000);
    expect(done.sentContacts).toBe(30);
    expect(fake.sent.length).toBeGreaterThan(held);
    expectEveryoneOnce(fake, contacts);
  });
});
