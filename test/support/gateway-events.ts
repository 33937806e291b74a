import { connectedInstance } from './campaigns';
import { closeDb } from './db';
import { FakeEvolutionApi } from './fake-evolution-api';
import { freePort } from './media';
import { startTestApp, TestApp, TestCompany } from './test-app';

/** The header the service registers on the instance's webhook, carrying the secret. */
export const EVENTS_SECRET_HEADER = 'x-campaign-service-secret';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` every 50 ms until `done` holds; throws with the last value after `ms`. */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(50);
    value = await read();
  }
  if (!done(value)) {
    throw new Error(`condition not reached; last: ${JSON.stringify(value)}`);
  }
  return value;
}

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

/**
 * The app on a known port with PUBLIC_BASE_URL set, so that configurations can track delivery,
 * and a fake gateway; started before the spec's tests and stopped after them.
 */
export function useTrackingApp(): { t: TestApp; fake: FakeEvolutionApi } {
  const state = { fake: new FakeEvolutionApi() } as { t: TestApp; fake: FakeEvolutionApi };
  beforeAll(async () => {
    await state.fake.start();
    const port = await freePort();
    state.t = await startTestApp({ PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }, { port });
  });
  afterAll(async () => {
    await state.t.close();
    await state.fake.stop();
    await closeDb();
  });
  return state;
}
