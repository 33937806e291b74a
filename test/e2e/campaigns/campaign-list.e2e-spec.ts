import { DateTime } from 'luxon';
import { connectedConfig, phones, waitForCampaign } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany } from '../../support/test-app';

const ZONE = 'America/Sao_Paulo';

/** A local day `daysAgo` before today, at noon. */
function noon(daysAgo: number): DateTime {
  return DateTime.now().setZone(ZONE).startOf('day').minus({ days: daysAgo }).set({ hour: 12 });
}

function day(daysAgo: number): string {
  return noon(daysAgo).toISODate() as string;
}

/**
 * GET /api/campaigns with its filters (status, search on the name, creation days, gateway
 * configuration, pools included) and paging, X-Total-Count the filtered total; another
 * company's campaigns never appear; bad input is a 400.
 */
describe('the campaign list', () => {
  const { t, fake } = useE2eFixture({ noRefusals: true });

  let company: TestCompany;
  let configs: number[];
  const ids: Record<string, number> = {};

  async function names(query: string): Promise<{ names: string[]; total: number }> {
    const response = await company.get(`/api/campaigns?${query}`).expect(200);
    return {
      names: response.body.map((c: { name: string }) => c.name),
      total: Number(response.headers['x-total-count']),
    };
  }

  beforeAll(async () => {
    company = await TestCompany.register(t.http);
    configs = [];
    for (let i = 0; i < 3; i += 1) {
      configs.push((await connectedConfig(company, fake)).id);
    }
    const [a, b, c] = configs;
    const draft = async (name: string, gateway: Record<string, unknown>, daysAgo: number) => {
      const created = await company
        .post('/api/campaigns', {
          name,
          isDraft: true,
          message: 'Olá',
          contacts: phones(2, 6000),
          ...gateway,
        })
        .expect(200);
      ids[name] = created.body.id;
      await db().query(`UPDATE campaigns SET created_at = $2 WHERE id = $1 OR pool_id = $1`, [
        created.body.id,
        noon(daysAgo).toJSDate(),
      ]);
    };
    await draft('Promoção de Natal', { gatewayConfigId: a }, 20);
    await draft('PROMOCAO relâmpago', { gatewayConfigId: b }, 10);
    await draft('Black Friday 100%', { gatewayConfigId: a }, 5);
    await draft('Pool de ofertas', { gatewayConfigIds: [b, c] }, 2);
    const sent = await company
      .post('/api/campaigns', {
        name: 'Aviso',
        gatewayConfigId: c,
        message: 'Olá',
        intervalMinSeconds: 0,
        intervalMaxSeconds: 0,
        contacts: phones(1, 6100),
      })
      .expect(200);
    ids.Aviso = sent.body.id;
    await waitForCampaign(company, sent.body.id, (x) => x.status === 'COMPLETED');
  });

  it('lists everything newest first, with the total, as before', async () => {
    expect(await names('')).toEqual({
      names: [
        'Aviso',
        'Pool de ofertas',
        'Black Friday 100%',
        'PROMOCAO relâmpago',
        'Promoção de Natal',
      ],
      total: 5,
    });
  });

  it('filters by each filter alone', async () => {
    expect(await names('status=COMPLETED')).toEqual({ names: ['Aviso'], total: 1 });
    expect((await names('status=DRAFT')).total).toBe(4);
    expect(await names('search=promocao')).toEqual({
      names: ['PROMOCAO relâmpago', 'Promoção de Natal'],
      total: 2,
    });
    expect(await names(`search=${encodeURIComponent('PROMOÇÃO')}`)).toEqual(
      await names('search=promocao'),
    );
    expect(await names(`search=${encodeURIComponent('RELAMP')}`)).toEqual({
      names: ['PROMOCAO relâmpago'],
      total: 1,
    });
    expect(await names(`search=${encodeURIComponent('100%')}`)).toEqual({
      names: ['Black Friday 100%'],
      total: 1,
    });
    expect(await names(`search=${encodeURIComponent('0%')}`)).toEqual({
      names: ['Black Friday 100%'],
      total: 1,
    });
    expect(await names(`search=${encodeURIComponent('%a')}`)).toEqual({ names: [], total: 0 });
    expect(await names(`from=${day(10)}`)).toEqual({
      names: ['Aviso', 'Pool de ofertas', 'Black Friday 100%', 'PROMOCAO relâmpago'],
      total: 4,
    });
    expect(await names(`to=${day(10)}`)).toEqual({
      names: ['PROMOCAO relâmpago', 'Promoção de Natal'],
      total: 2,
    });
    expect(await names(`from=${day(10)}&to=${day(5)}`)).toEqual({
      names: ['Black Friday 100%', 'PROMOCAO relâmpago'],
      total: 2,
    });
    const [a, b, c] = configs;
    expect(await names(`gatewayConfigId=${a}`)).toEqual({
      names: ['Black Friday 100%', 'Promoção de Natal'],
      total: 2,
    });
    expect(await names(`gatewayConfigId=${b}`)).toEqual({
      names: ['Pool de ofertas', 'PROMOCAO relâmpago'],
      total: 2,
    });
    expect(await names(`gatewayConfigId=${c}`)).toEqual({
      names: ['Aviso', 'Pool de ofertas'],
      total: 2,
    });
  });

  it('combines the filters and pages the result', async () => {
    const [a, b] = configs;
    expect(await names(`search=promo&gatewayConfigId=${a}`)).toEqual({
      names: ['Promoção de Natal'],
      total: 1,
    });
    expect(await names(`status=DRAFT&from=${day(10)}&gatewayConfigId=${b}`)).toEqual({
      names: ['Pool de ofertas', 'PROMOCAO relâmpago'],
      total: 2,
    });
    expect(await names(`status=COMPLETED&search=promo`)).toEqual({ names: [], total: 0 });
    expect(await names('size=2')).toEqual({ names: ['Aviso', 'Pool de ofertas'], total: 5 });
    expect(await names('size=2&page=2')).toEqual({ names: ['Promoção de Natal'], total: 5 });
    expect(await names('size=2&page=3')).toEqual({ names: [], total: 5 });
    expect(await names('status=DRAFT&size=3&page=1')).toEqual({
      names: ['Promoção de Natal'],
      total: 4,
    });
  });

  it('never shows another company’s campaigns', async () => {
    const stranger = await TestCompany.register(t.http);
    for (const query of ['', `gatewayConfigId=${configs[0]}`, 'search=promo']) {
      const response = await stranger.get(`/api/campaigns?${query}`).expect(200);
      expect(response.body).toEqual([]);
      expect(response.headers['x-total-count']).toBe('0');
    }
    expectErrorBody(await stranger.get(`/api/campaigns/${ids.Aviso}`), 403);
  });

  it('refuses bad filters with 400', async () => {
    for (const query of [
      'from=2026-13-01',
      'from=ontem',
      'to=2026-02-30',
      `from=${day(1)}&to=${day(2)}`,
      'page=-1',
      'size=0',
      'size=101',
      'page=abc',
      'gatewayConfigId=abc',
      'gatewayConfigId=0',
      'gatewayConfigId=9999999999',
      'status=SENDING',
      `search=${'x'.repeat(101)}`,
    ]) {
      const message = expectErrorBody(await company.get(`/api/campaigns?${query}`), 400);
      expect(message).toMatch(/^\{\w+=/);
    }
  });
});
