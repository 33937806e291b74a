import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectedInstance } from '../../support/campaigns';
import { useE2eFixture } from '../../support/e2e-fixture';
import { generateSchemaTypes, loadModule, typeErrors } from '../../support/generated-client';
import { ADMIN_PASSWORD, uniqueEmail } from '../../support/test-app';

/**
 * The README's walk-through, written as a user of the API would write it: against the types
 * openapi-typescript generates from /api/docs-json, with openapi-fetch. It is type-checked
 * (strict) against those types, then the same code runs against the service.
 */
const WALKTHROUGH = `
import createClient from 'openapi-fetch';
import type { paths } from './schema';

export interface Gateway {
  url: string;
  instance: string;
  apiKey: string;
}

function ok<T>(result: { data?: T; error?: unknown; response: Response }, step: string): T {
  if (result.data === undefined) {
    throw new Error(step + ': ' + result.response.status + ' ' + JSON.stringify(result.error));
  }
  return result.data;
}

export async function walkThrough(
  baseUrl: string,
  adminPassword: string,
  email: string,
  gateway: Gateway,
) {
  const api = createClient<paths>({ baseUrl });
  const password = 'segredo123';

  const registered = ok(
    await api.POST('/api/auth/register', {
      params: { header: { ACCESS_TOKEN: 'Bearer ' + adminPassword } },
      body: { name: 'Loja da Maria', email, password },
    }),
    'register',
  );
  const session = ok(await api.POST('/api/auth/login', { body: { email, password } }), 'login');
  const auth = { header: { 'X-Access-Token': session.accessToken } };
  const me = ok(await api.GET('/api/auth/me', { params: auth }), 'me');

  const configuration = ok(
    await api.POST('/api/gateway-configs', {
      params: auth,
      body: { name: 'Loja', url: gateway.url, apiKey: gateway.apiKey, instance: gateway.instance },
    }),
    'gateway configuration',
  );
  const created = ok(
    await api.POST('/api/campaigns', {
      params: auth,
      body: {
        name: 'Boas-vindas',
        gatewayConfigId: configuration.id,
        message: 'Olá {PrimeiroNome}!',
        contacts: [
          { phoneNumber: '(11) 98765-4321', name: 'Ana Souza' },
          { phoneNumber: '11987654322', name: 'Bruno Lima' },
        ],
        intervalMinSeconds: 0,
        intervalMaxSeconds: 0,
      },
    }),
    'create campaign',
  );
  const readBack = ok(
    await api.GET('/api/campaigns/{id}', { params: { ...auth, path: { id: created.id } } }),
    'read campaign',
  );
  const contacts = ok(
    await api.GET('/api/campaigns/{id}/contacts', {
      params: { ...auth, path: { id: created.id }, query: { page: 0, size: 100 } },
    }),
    'campaign contacts',
  );
  const refused = await api.GET('/api/campaigns/{id}', {
    params: { header: { 'X-Access-Token': 'not-a-token' }, path: { id: created.id } },
  });

  return {
    companyId: registered.companyId,
    me: { companyId: me.companyId, companyEmail: me.companyEmail },
    configurationId: configuration.id,
    created: { id: created.id, status: created.status, totalContacts: created.totalContacts },
    readBack: {
      id: readBack.id,
      name: readBack.name,
      gatewayConfig: readBack.gatewayConfig,
      totalContacts: readBack.totalContacts,
      messageContent: readBack.messageContent,
    },
    contactPhones: contacts.map((contact) => contact.phoneNumber).sort(),
    refused: { status: refused.response.status, error: refused.error?.status },
  };
}
`;

interface WalkthroughModule {
  walkThrough: (
    baseUrl: string,
    adminPassword: string,
    email: string,
    gateway: { url: string; instance: string; apiKey: string },
  ) => Promise<Record<string, any>>;
}

describe('a client generated from the served OpenAPI description', () => {
  const { t, fake } = useE2eFixture();
  const dir = mkdtempSync(join(tmpdir(), 'openapi-client-'));
  const walkthroughFile = join(dir, 'walkthrough.ts');

  beforeAll(async () => {
    const served = await t.http.get('/api/docs-json').expect(200);
    generateSchemaTypes(served.body as object, dir);
    writeFileSync(walkthroughFile, WALKTHROUGH);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('type-checks the README walk-through against the generated types', () => {
    expect(typeErrors(walkthroughFile)).toEqual([]);
  });

  it('refuses, at compile time, a body and a field the description does not have', () => {
    const misuse = join(dir, 'misuse.ts');
    writeFileSync(
      misuse,
      `import createClient from 'openapi-fetch';
       import type { paths } from './schema';
       export async function misuse() {
         const api = createClient<paths>({ baseUrl: 'http://127.0.0.1' });
         const created = await api.POST('/api/campaigns', {
           params: { header: { 'X-Access-Token': 't' } },
           body: { name: 'Sem contatos', message: 'Oi' },
         });
         const when: string | undefined = created.data?.scheduledAt;
         return when;
       }`,
    );

    const errors = typeErrors(misuse).join('\n');

    expect(errors).toContain("Property 'contacts' is missing");
    expect(errors).toContain("Property 'scheduledAt' does not exist");
  });

  it('registers, logs in, saves a gateway configuration and creates a campaign through it', async () => {
    const gateway = { url: fake.url, ...connectedInstance(fake) };
    const { walkThrough } = loadModule<WalkthroughModule>(WALKTHROUGH);

    const result = await walkThrough(t.baseUrl, ADMIN_PASSWORD, uniqueEmail('cliente'), gateway);

    expect(result.me.companyId).toBe(result.companyId);
    expect(result.created).toMatchObject({ status: 'ACTIVE', totalContacts: 2 });
    expect(result.readBack).toEqual({
      id: result.created.id,
      name: 'Boas-vindas',
      gatewayConfig: {
        id: result.configurationId,
        name: 'Loja',
        url: fake.url,
        instance: gateway.instance,
      },
      totalContacts: 2,
      messageContent: 'Olá {PrimeiroNome}!',
    });
    expect(result.contactPhones).toEqual(['5511987654321', '5511987654322']);
    expect(result.refused).toEqual({ status: 401, error: 401 });
    await fake.waitForSent(2);
    expect(fake.sentTo('5511987654321').map((m) => m.body.text)).toEqual(['Olá Ana!']);
  });
});
