import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { FakeGraphApi, MetaTemplate } from '../../support/fake-graph-api';
import {
  sendWebhook,
  templateStatusChange,
  verificationRequest,
  webhookBody,
} from '../../support/fake-graph-api/webhooks';
import { until } from '../../support/waiting';

const TOKEN = 'EAAG-token-do-webhook-77CD';
const APP_SECRET = 'segredo-do-app-da-meta';
const NUMBER_ID = '106540352247777';
const WABA_ID = '102290129347777';
const PROMO: MetaTemplate = {
  name: 'promo_black_friday',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'MARKETING',
  parameter_format: 'POSITIONAL',
  components: [{ type: 'BODY', text: 'Olá {{1}}, a Black Friday chegou!' }],
};

/**
 * A Cloud API configuration created through the API against the fake Graph API: the webhook URL
 * and verify token it shows are what Meta's verification needs, and a template change reported
 * by webhook is recorded and the business account's templates read again from Meta.
 */
describe('the webhook of a Cloud API configuration created through the API', () => {
  const graph = new FakeGraphApi();
  const {
    t,
    companies: [owner],
  } = useE2eFixture({ servers: [graph], companies: ['Loja oficial'], publicBaseUrl: true });

  it('verifies with the shown token at the shown URL, and reads templates again on a status change', async () => {
    graph.addNumber({ phoneNumberId: NUMBER_ID, businessAccountId: WABA_ID, accessToken: TOKEN });
    graph.addTemplate(WABA_ID, PROMO);
    const created = await owner
      .post('/api/gateway-configs', {
        provider: 'CLOUD_API',
        name: 'Oficial',
        url: graph.url,
        phoneNumberId: NUMBER_ID,
        businessAccountId: WABA_ID,
        accessToken: TOKEN,
        appSecret: APP_SECRET,
      })
      .expect(201);
    const { id, webhookUrl, webhookVerifyToken } = created.body;
    expect(webhookUrl).toBe(`${t.config.publicBaseUrl}/api/gateway-events/${id}`);
    const verified = await verificationRequest(t.http, id, {
      'hub.mode': 'subscribe',
      'hub.verify_token': webhookVerifyToken,
      'hub.challenge': '987654321',
    }).expect(200);
    expect(verified.text).toBe('987654321');

    await owner.get(`/api/gateway-configs/${id}/templates`).expect(200);
    const reads = () => graph.requests.filter((r) => r.path.endsWith('/message_templates')).length;
    const readsBefore = reads();
    // Meta pauses the template, then tells the service.
    graph.updateTemplate(WABA_ID, PROMO.name, { status: 'PAUSED' });
    await sendWebhook(
      t.http,
      id,
      webhookBody(WABA_ID, [templateStatusChange(PROMO, 'PAUSED')]),
      APP_SECRET,
    ).expect(200);
    await until(
      async () =>
        (
          await db().query(
            `SELECT status FROM gateway_templates WHERE gateway_config_id = $1 AND name = $2`,
            [id, PROMO.name],
          )
        ).rows[0]?.status,
      (status) => status === 'PAUSED',
    );
    await until(reads, (n) => n === readsBefore + 1);
    const listed = await owner.get(`/api/gateway-configs/${id}/templates`).expect(200);
    expect(listed.body).toEqual([expect.objectContaining({ name: PROMO.name, status: 'PAUSED' })]);
  });
});
