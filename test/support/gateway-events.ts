import { connectedInstance } from './campaigns';
import type { FakeEvolutionApi } from './fake-evolution-api';
import type { TestCompany } from './test-app';

/** The header the service registers on the instance's webhook, carrying the secret. */
export const EVENTS_SECRET_HEADER = 'x-campaign-service-secret';

/** A configuration of a connected instance of the fake gateway, with delivery tracking on. */
export async function trackedConfig(
  company: TestCompany,
  fake: FakeEvolutionApi,
  extra: Record<string, unknown> = {},
): Promise<{ id: number; instance: string; apiKey: string }> {
  const gw = connectedInstance(fake);
  const created = await company
    .post('/api/gateway-configs', {
      name: 'Principal',
      url: fake.url,
      apiKey: gw.apiKey,
      instance: gw.instance,
      trackDelivery: true,
      ...extra,
    })
    .expect(201);
  return { id: created.body.id, ...gw };
}

/** A campaign through the configuration, sending without pauses unless told. */
export async function startCampaign(
  company: TestCompany,
  configId: number,
  body: Record<string, unknown>,
): Promise<Record<string, any>> {
  return (
    await company
      .post('/api/campaigns', {
        name: 'Recibos',
        gatewayConfigId: configId,
        message: 'Olá {PrimeiroNome}',
        intervalMinSeconds: 0,
        intervalMaxSeconds: 0,
        ...body,
      })
      .expect(200)
  ).body;
}

/** The secret the service registered on the instance's webhook. */
export function eventsSecretOf(fake: FakeEvolutionApi, instance: string): string {
  const secret = fake.webhookOf(instance)?.headers[EVENTS_SECRET_HEADER];
  if (!secret) {
    throw new Error(`no events secret registered on ${instance}`);
  }
  return secret;
}
