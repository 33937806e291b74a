import type { FakeEvolutionApi } from './fake-evolution-api';
import type { TestCompany } from './test-app';
import { until } from './waiting';

let instanceCounter = 0;

/** A connected instance on the fake gateway, with its own name and key. */
export function connectedInstance(fake: FakeEvolutionApi): { instance: string; apiKey: string } {
  instanceCounter += 1;
  const instance = `loja-${process.pid}-${instanceCounter}`;
  const apiKey = `key-${instance}`;
  fake.addInstance(instance, { apiKey, state: 'open' });
  return { instance, apiKey };
}

/** A gateway configuration of the company on a new connected instance of the fake. */
export async function connectedConfig(
  company: TestCompany,
  fake: FakeEvolutionApi,
): Promise<{ id: number; gw: { instance: string; apiKey: string } }> {
  const gw = connectedInstance(fake);
  const config = await company
    .post('/api/gateway-configs', {
      name: 'P',
      url: fake.url,
      apiKey: gw.apiKey,
      instance: gw.instance,
    })
    .expect(201);
  return { id: config.body.id as number, gw };
}

export function campaignBody(
  fake: FakeEvolutionApi,
  gateway: { instance: string; apiKey: string },
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name: 'Campanha de teste',
    gatewayUrl: fake.url,
    gatewayApiKey: gateway.apiKey,
    gatewayInstance: gateway.instance,
    message: 'Olá {PrimeiroNome}, tudo bem?',
    intervalMinSeconds: 0,
    intervalMaxSeconds: 0,
    contacts: [
      { phoneNumber: '11987650001', name: 'Maria Souza' },
      { phoneNumber: '11987650002', name: 'João Pedro Lima' },
      { phoneNumber: '11987650003' },
    ],
    ...overrides,
  };
}

/** Polls the campaign until `reached` holds (the engine works in the background). */
export async function waitForCampaign(
  company: TestCompany,
  id: number,
  reached: (campaign: Record<string, any>) => boolean,
  timeoutMs = 60_000,
): Promise<Record<string, any>> {
  return until(
    async () => (await company.get(`/api/campaigns/${id}`)).body,
    reached,
    timeoutMs,
    `the expected state of campaign ${id}`,
  );
}

export function phones(count: number, start = 0): Array<{ phoneNumber: string; name: string }> {
  return Array.from({ length: count }, (_v, i) => ({
    phoneNumber: `55119${String(80000000 + start + i).padStart(8, '0')}`,
    name: `Contato ${start + i}`,
  }));
}
