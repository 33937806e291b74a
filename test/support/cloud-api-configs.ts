import type { FakeGraphApi } from './fake-graph-api';
import type { TestCompany } from './test-app';

export const CLOUD_TOKEN = 'EAAG-token-das-campanhas-7C1D';
export const CLOUD_APP_SECRET = 'segredo-do-app-das-campanhas';
export const CLOUD_WABA_ID = '302290129340311';
let numberCounter = 0;

/**
 * A Cloud API configuration of `company` (POST /api/gateway-configs) on a new number of the
 * fake Graph API, in the business account CLOUD_WABA_ID: its id.
 */
export async function cloudApiConfig(company: TestCompany, graph: FakeGraphApi): Promise<number> {
  numberCounter += 1;
  const phoneNumberId = `1065403522${process.pid % 1000}${numberCounter}`;
  graph.addNumber({
    phoneNumberId,
    businessAccountId: CLOUD_WABA_ID,
    accessToken: CLOUD_TOKEN,
    displayPhoneNumber: '+55 11 3000-0000',
    verifiedName: 'Loja',
    qualityRating: 'GREEN',
    tier: 'TIER_1K',
    appSecret: CLOUD_APP_SECRET,
  });
  const created = await company
    .post('/api/gateway-configs', {
      provider: 'CLOUD_API',
      name: `Oficial ${numberCounter}`,
      url: graph.url,
      phoneNumberId,
      businessAccountId: CLOUD_WABA_ID,
      accessToken: CLOUD_TOKEN,
      appSecret: CLOUD_APP_SECRET,
    })
    .expect(201);
  return created.body.id as number;
}
