import type { FakeEvolutionApi } from './fake-evolution-api';
import { db } from './db';
import { startCampaign, trackedConfig } from './gateway-events';
import type { TestCompany } from './test-app';
import { until } from './waiting';
import { waitForCampaign } from './campaigns';

/** The people of the mixed-receipts campaign, by what happens to their message. */
export const PEOPLE = {
  read: { phoneNumber: '5511987001001', name: 'José da Silva' },
  delivered: { phoneNumber: '5511987001002', name: 'jose souza' },
  silent: { phoneNumber: '5511987001003', name: 'Maria Conceição' },
  replied: { phoneNumber: '5511987001004', name: 'JOÃO PEDRO' },
  refused: { phoneNumber: '5511987001005', name: 'Ana Recusada' },
  nacked: { phoneNumber: '5511987001006', name: 'Bia Nack' },
  played: { phoneNumber: '5511987001007', name: 'Carla Áudio' },
};
export type Person = keyof typeof PEOPLE;

/** Every event the gateway posted for the configuration was applied. */
export async function eventsApplied(configId: number): Promise<void> {
  await until(
    async () =>
      (
        await db().query(
          `SELECT count(*)::int AS n FROM gateway_events WHERE gateway_config_id = $1 AND failed_at IS NULL`,
          [configId],
        )
      ).rows[0].n,
    (n) => n === 0,
  );
}

/** The message id the fake answered for the send to `phone`. */
export function messageIdTo(fake: FakeEvolutionApi, phone: string): string {
  const [sent] = fake.sentTo(phone);
  if (!sent) {
    throw new Error(`nothing was sent to ${phone}`);
  }
  return sent.messageId;
}

/**
 * A completed campaign whose contacts heard back from WhatsApp in every way through the fake
 * gateway's events: read, delivered, nothing, read and replied, refused number, refused after
 * acceptance (not_delivered), played; `extra` contacts are sent too and hear nothing.
 */
export async function mixedReceiptsCampaign(
  company: TestCompany,
  fake: FakeEvolutionApi,
  extra: Array<{ phoneNumber: string; name: string }> = [],
): Promise<{ id: number; instance: string; configId: number }> {
  const config = await trackedConfig(company, fake);
  fake.refuseNumber(PEOPLE.refused.phoneNumber);
  const campaign = await startCampaign(company, config.id, {
    contacts: [...Object.values(PEOPLE), ...extra],
  });
  await waitForCampaign(company, campaign.id, (c) => c.status === 'COMPLETED');
  const id = (person: Person): string => messageIdTo(fake, PEOPLE[person].phoneNumber);
  await fake.emitReceipt(config.instance, id('read'), 'READ');
  await fake.emitReceipt(config.instance, id('delivered'), 'DELIVERY_ACK');
  await fake.emitReceipt(config.instance, id('replied'), 'READ');
  await fake.emitNack(config.instance, id('nacked'));
  await fake.emitReceipt(config.instance, id('played'), 'PLAYED');
  await fake.emitInbound(config.instance, {
    from: PEOPLE.replied.phoneNumber,
    text: 'Tenho interesse',
  });
  await waitForCampaign(
    company,
    campaign.id,
    (c) => c.readContacts === 3 && c.repliedContacts === 1 && c.failedContacts === 2,
  );
  await eventsApplied(config.id);
  return { id: campaign.id as number, instance: config.instance, configId: config.id };
}

/** A campaign on a pool of two new senders, sent to `contacts` without pauses, completed. */
export async function completedPool(
  company: TestCompany,
  fake: FakeEvolutionApi,
  contacts: Array<{ phoneNumber: string; name: string }>,
): Promise<{ id: number; senders: Array<{ id: number; instance: string }> }> {
  const senders = [await trackedConfig(company, fake), await trackedConfig(company, fake)];
  const created = (
    await company
      .post('/api/campaigns', {
        name: 'Pool',
        gatewayConfigIds: senders.map((s) => s.id),
        message: 'Olá',
        intervalMinSeconds: 0,
        intervalMaxSeconds: 0,
        contacts,
      })
      .expect(200)
  ).body;
  await waitForCampaign(company, created.id, (c) => c.status === 'COMPLETED');
  return { id: created.id as number, senders };
}
