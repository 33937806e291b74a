import { phones } from '../../support/campaigns';
import {
  completedPool,
  mixedReceiptsCampaign,
  PEOPLE,
  type Person,
} from '../../support/campaign-contacts';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { trackedConfig } from '../../support/gateway-events';
import type { TestCompany } from '../../support/test-app';

const NAME_OF = new Map(Object.entries(PEOPLE).map(([person, p]) => [p.phoneNumber, person]));

/**
 * GET /api/campaigns/{id}/contacts with its filters: a campaign whose contacts heard back from
 * WhatsApp in every way through the fake gateway's events, found by status, receipt, failure
 * kind and search, alone and together, page by page.
 */
describe('finding a campaign’s contacts', () => {
  const {
    fake,
    companies: [company, other],
  } = useE2eFixture({ publicBaseUrl: true, noRefusals: true, companies: 2 });
  let campaign: { id: number; instance: string };

  beforeAll(async () => {
    campaign = await mixedReceiptsCampaign(company, fake);
  });

  async function found(
    query: string,
    id = campaign.id,
    as: TestCompany = company,
  ): Promise<{ people: string[]; total: number; body: Array<Record<string, any>> }> {
    const response = await as.get(`/api/campaigns/${id}/contacts?${query}`).expect(200);
    const body = response.body as Array<Record<string, any>>;
    return {
      people: body.map((c) => NAME_OF.get(c.phoneNumber) ?? c.phoneNumber),
      total: Number(response.headers['x-total-count']),
      body,
    };
  }

  it.each<[string, Person[]]>([
    ['', ['read', 'delivered', 'silent', 'replied', 'refused', 'nacked', 'played']],
    ['status=SENT', ['read', 'delivered', 'silent', 'replied', 'played']],
    ['status=FAILED', ['refused', 'nacked']],
    ['status=PENDING', []],
    ['receipt=DELIVERED', ['read', 'delivered', 'replied', 'played']],
    ['receipt=READ', ['read', 'replied', 'played']],
    ['receipt=REPLIED', ['replied']],
    ['receipt=NOT_DELIVERED', ['silent', 'nacked']],
    ['failureKind=refused_number', ['refused']],
    ['failureKind=not_delivered', ['nacked']],
    ['failureKind=blocked', []],
  ])('filters %s', async (query, people) => {
    const result = await found(query);
    expect(result.people).toEqual(people);
    expect(result.total).toBe(people.length);
  });

  it.each<[string, Person[]]>([
    ['search=JOS%C3%89', ['read', 'delivered']],
    ['search=jose', ['read', 'delivered']],
    ['search=%20%20Jos%C3%A9%20%20', ['read', 'delivered']],
    ['search=conceicao', ['silent']],
    ['search=CONCEI%C3%87%C3%83O', ['silent']],
    ['search=joao%20p', ['replied']],
    ['search=audio', ['played']],
    ['search=001003', ['silent']],
    ['search=98700100', ['read', 'delivered', 'silent', 'replied', 'refused', 'nacked', 'played']],
    ['search=%2B55%20(11)%2098700-1004', ['replied']],
    ['search=55119999', []],
    ['search=50%25', []],
  ])('searches %s', async (query, people) => {
    const result = await found(query);
    expect(result.people).toEqual(people);
    expect(result.total).toBe(people.length);
  });

  it.each<[string, Person[]]>([
    ['status=SENT&receipt=READ&search=jose', ['read']],
    ['status=FAILED&failureKind=not_delivered', ['nacked']],
    ['status=SENT&receipt=NOT_DELIVERED', ['silent']],
    ['status=FAILED&receipt=NOT_DELIVERED', ['nacked']],
    ['receipt=READ&search=silva', ['read']],
    ['receipt=REPLIED&search=jose', []],
    ['status=SENT&failureKind=refused_number', []],
    ['receipt=DELIVERED&search=9870010', ['read', 'delivered', 'replied', 'played']],
  ])('combines %s', async (query, people) => {
    const result = await found(query);
    expect(result.people).toEqual(people);
    expect(result.total).toBe(people.length);
  });

  it('pages the filtered contacts in order, with the filtered total on every page', async () => {
    const pages = await Promise.all(
      [0, 1, 2, 3].map((page) => found(`status=SENT&size=2&page=${page}`)),
    );
    expect(pages.map((p) => p.people)).toEqual([
      ['read', 'delivered'],
      ['silent', 'replied'],
      ['played'],
      [],
    ]);
    expect(pages.map((p) => p.total)).toEqual([5, 5, 5, 5]);
    const first = pages[0].body[0];
    expect(first).toMatchObject({
      phoneNumber: PEOPLE.read.phoneNumber,
      name: 'José da Silva',
      status: 'SENT',
      sender: { instance: campaign.instance },
    });
    expect(first.readAt).toEqual(expect.any(String));
  });

  it('finds the pending contacts of a scheduled campaign', async () => {
    const config = await trackedConfig(company, fake);
    const contacts = phones(3, 7700);
    const scheduled = (
      await company
        .post('/api/campaigns', {
          name: 'Agendada',
          gatewayConfigId: config.id,
          message: 'Olá',
          scheduledFor: '2099-01-01T10:00',
          contacts,
        })
        .expect(200)
    ).body;
    const pending = await found('status=PENDING&size=2', scheduled.id);
    expect(pending.body.map((c) => c.phoneNumber)).toEqual(
      contacts.slice(0, 2).map((c) => c.phoneNumber),
    );
    expect(pending.total).toBe(3);
    expect((await found('status=SENT', scheduled.id)).total).toBe(0);
    expect((await found('receipt=NOT_DELIVERED', scheduled.id)).total).toBe(0);
    expect((await found(`search=${contacts[2].phoneNumber.slice(-4)}`, scheduled.id)).total).toBe(
      1,
    );
  });

  it('finds the contacts of a pool across its senders', async () => {
    const contacts = [
      ...phones(4, 7800).map((c, i) => ({ ...c, name: i % 2 ? `Zé ${i}` : `Lúcia ${i}` })),
    ];
    const pool = await completedPool(company, fake, contacts);
    const all = await found('status=SENT', pool.id);
    expect(all.body.map((c) => c.phoneNumber).sort()).toEqual(
      contacts.map((c) => c.phoneNumber).sort(),
    );
    expect(all.total).toBe(4);
    expect(new Set(all.body.map((c) => c.sender.instance))).toEqual(
      new Set(pool.senders.map((s) => s.instance)),
    );
    const lucias = await found('search=LUCIA&size=1', pool.id);
    expect(lucias.body.map((c) => c.name)).toEqual(['Lúcia 0']);
    expect(lucias.total).toBe(2);
    const second = await found('search=lucia&size=1&page=1', pool.id);
    expect(second.body.map((c) => c.name)).toEqual(['Lúcia 2']);
    expect((await found('receipt=NOT_DELIVERED', pool.id)).total).toBe(4);
  });

  it.each([
    ['status=DONE', 'status', 'deve ser um de: PENDING, SENT, FAILED'],
    ['status=sent', 'status', 'deve ser um de: PENDING, SENT, FAILED'],
    ['status=SENT&status=FAILED', 'status', 'deve ser um de: PENDING, SENT, FAILED'],
    ['receipt=SEEN', 'receipt', 'deve ser um de: DELIVERED, READ, REPLIED, NOT_DELIVERED'],
    [
      'failureKind=nope',
      'failureKind',
      'deve ser um de: refused_number, rejected, retries_exhausted, blocked, blank_message, not_delivered, unknown_outcome, unrecorded, undeliverable, reengagement_required, marketing_limit, outside_window',
    ],
    [
      `search=${'a'.repeat(101)}`,
      'search',
      'deve ter de 3 a 100 caracteres (ou dígitos do telefone)',
    ],
    ['search=ab', 'search', 'deve ter de 3 a 100 caracteres (ou dígitos do telefone)'],
    ['search=%20%20', 'search', 'deve ter de 3 a 100 caracteres (ou dígitos do telefone)'],
    ['size=0', 'size', 'deve ser de 1 a 100'],
    ['size=101', 'size', 'deve ser de 1 a 100'],
    ['page=-1', 'page', 'não pode ser negativo'],
    ['sort=name', 'sort', 'campo desconhecido'],
  ])('refuses %s with 400 naming the field', async (query, field, message) => {
    const path = `/api/campaigns/${campaign.id}/contacts`;
    const response = await company.get(`${path}?${query}`);
    expect(expectErrorBody(response, 400, path)).toBe(`{${field}=${message}}`);
  });

  it('answers 400 for an unknown campaign and 403 for another company’s, on the list and the export', async () => {
    for (const suffix of ['contacts?status=SENT', 'contacts/export?format=csv']) {
      const unknown = await company.get(`/api/campaigns/99999999/${suffix}`);
      expect(expectErrorBody(unknown, 400)).toBe('Campanha não encontrada');
      expectErrorBody(await other.get(`/api/campaigns/${campaign.id}/${suffix}`), 403);
    }
  });
});
