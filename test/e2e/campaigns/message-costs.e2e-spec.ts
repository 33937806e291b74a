import { phones, waitForCampaign } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import {
  completedCloudCampaign,
  messagesChange,
  sendWebhook,
  status,
  webhookBody,
} from '../../support/fake-graph-api/webhooks';
import { TestCompany } from '../../support/test-app';

const PRICES = { marketing: 0.0625, utility: 0.0068, authentication: 0.0315, service: 0 };

async function storedPrices(company: TestCompany): Promise<unknown> {
  const { rows } = await db().query<{ message_prices: unknown }>(
    `SELECT message_prices FROM companies WHERE id = $1`,
    [company.id],
  );
  return rows[0].message_prices;
}

/**
 * The company's Cloud API price table (settings `messagePrices`): set, read, cleared, and every
 * bad table refused with nothing changed.
 */
describe('message costs', () => {
  const { t } = useE2eFixture();

  it('keeps the company’s price table, and clears it with null', async () => {
    const company = await TestCompany.register(t.http);
    const settings = `/api/companies/${company.id}/settings`;
    expect((await company.get(settings).expect(200)).body.messagePrices).toBeNull();

    const set = await company.patch(settings).send({ messagePrices: PRICES }).expect(200);
    expect(set.body.messagePrices).toEqual(PRICES);
    expect((await company.get(settings).expect(200)).body.messagePrices).toEqual(PRICES);
    expect(await storedPrices(company)).toEqual(PRICES);

    const other = await company.patch(settings).send({ includeReplyText: true }).expect(200);
    expect(other.body.messagePrices).toEqual(PRICES);

    await company.patch(settings).send({ messagePrices: null }).expect(200);
    expect(await storedPrices(company)).toBeNull();
  });

  it.each([
    ['a negative price', { ...PRICES, utility: -0.01 }, 'messagePrices.utility'],
    ['a price over 10 USD', { ...PRICES, marketing: 10.5 }, 'messagePrices.marketing'],
    ['seven decimals', { ...PRICES, service: 0.0000001 }, 'messagePrices.service'],
    ['a text', { ...PRICES, authentication: '0.03' }, 'messagePrices.authentication'],
    [
      'a missing category',
      { marketing: 0.06, utility: 0.01, authentication: 0.03 },
      'messagePrices.service',
    ],
    ['an unknown category', { ...PRICES, referral: 0.01 }, 'messagePrices'],
    ['a list', [PRICES], 'messagePrices'],
    ['a number', 0.06, 'messagePrices'],
  ])('refuses %s and changes nothing', async (_case, messagePrices, field) => {
    const company = await TestCompany.register(t.http);
    const settings = `/api/companies/${company.id}/settings`;
    await company.patch(settings).send({ messagePrices: PRICES }).expect(200);

    const refused = await company.patch(settings).send({ messagePrices, includeReplyText: true });
    expectErrorBody(refused, 400);
    expect(JSON.stringify(refused.body)).toContain(field);
    expect(await storedPrices(company)).toEqual(PRICES);
    expect((await company.get(settings).expect(200)).body.includeReplyText).toBe(false);
  });
});

/**
 * What Meta's status webhooks say a campaign's messages cost, counted once per message, in
 * the campaign's report and the company's day.
 */
describe('message costs from Meta’s statuses', () => {
  const { t, fake } = useE2eFixture({ publicBaseUrl: true, noRefusals: true });

  it('counts each charged message once at its price category, and prices it by the company’s table', async () => {
    const company = await TestCompany.register(t.http);
    const { cloud, campaignId, wamids } = await completedCloudCampaign(
      t.app,
      fake,
      company,
      phones(5, 7100),
    );
    const charged = (category: string, type = 'regular') => ({
      billable: type === 'regular',
      category,
      type,
    });
    const statuses = [
      status({ wamid: wamids[0], status: 'sent', pricing: charged('marketing') }),
      status({ wamid: wamids[0], status: 'delivered', pricing: charged('marketing') }),
      status({ wamid: wamids[0], status: 'read', pricing: charged('marketing') }),
      status({
        wamid: wamids[1],
        status: 'delivered',
        pricing: charged('service', 'free_customer_service'),
      }),
      status({ wamid: wamids[2], status: 'delivered', pricing: charged('utility') }),
      status({
        wamid: wamids[3],
        status: 'delivered',
        pricing: charged('authentication_international'),
      }),
      status({ wamid: wamids[4], status: 'delivered' }),
    ];
    const body = webhookBody(cloud.businessAccountId, [messagesChange(cloud, { statuses })]);
    await sendWebhook(t.http, cloud.id, body, cloud.appSecret).expect(200);
    // Meta delivers again: nothing is counted twice.
    await sendWebhook(t.http, cloud.id, body, cloud.appSecret).expect(200);
    await waitForCampaign(company, campaignId, (c) => c.deliveredContacts === 5);
    const expected = { marketing: 1, utility: 1, authentication: 1, service: 0 };

    const unpriced = (await company.get(`/api/campaigns/${campaignId}/report`).expect(200)).body;
    expect(unpriced.cost).toEqual({ currency: 'USD', billableMessages: expected, amount: null });

    await company
      .patch(`/api/companies/${company.id}/settings`)
      .send({ messagePrices: PRICES })
      .expect(200);
    const priced = (await company.get(`/api/campaigns/${campaignId}/report`).expect(200)).body;
    expect(priced.cost).toEqual({ currency: 'USD', billableMessages: expected, amount: 0.1008 });

    const daily = (await company.get('/api/campaigns/report').expect(200)).body;
    expect(daily.totals.cost).toEqual(priced.cost);
    const today = daily.days.at(-1);
    expect(today.cost).toEqual(priced.cost);
    expect(
      daily.days.slice(0, -1).every((d: { cost: { amount: number } }) => d.cost.amount === 0),
    ).toBe(true);
  });
});
