import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { startAppOn, TestCompany } from '../../support/test-app';

const ALL_EVENTS = [
  'campaign.started',
  'campaign.progress',
  'campaign.completed',
  'campaign.failed',
  'campaign.paused',
  'campaign.retried',
  'campaign.sender_lost',
  'contact.opted_out',
  'contact.replied',
  'gateway.restricted',
];
const ENCRYPTION_KEY = 'webhooks-api-e2e-encryption-key-0123';
/** An address in a documentation range: public, so allowed, and no DNS needed. */
const HOOK_URL = 'https://203.0.113.10/campanhas?token=abc';

/**
 * The configuration routes. On a database of its own, so that no other file's worker ever
 * sees these webhooks (and the other way round).
 */
describe('webhook configuration', () => {
  const { t, pool } = useE2eFixture({ database: 'webhooks_api', env: { ENCRYPTION_KEY } });

  const path = (company: TestCompany, rest = ''): string =>
    `/api/companies/${company.id}/webhook${rest}`;

  it('creates the webhook with every event, shows the secret once, and keeps it encrypted', async () => {
    const company = await TestCompany.register(t.http);
    expectErrorBody(await company.get(path(company)), 404, path(company));

    const created = await company.put(path(company), { url: HOOK_URL }).expect(201);
    expect(Object.keys(created.body).sort()).toEqual(
      [
        'createdAt',
        'events',
        'id',
        'isActive',
        'previousSecretValidUntil',
        'secret',
        'updatedAt',
        'url',
      ].sort(),
    );
    expect(created.body).toMatchObject({
      url: HOOK_URL,
      events: ALL_EVENTS,
      isActive: true,
      previousSecretValidUntil: null,
    });
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);

    const read = await company.get(path(company)).expect(200);
    const { secret: _shownOnce, ...withoutSecret } = created.body as Record<string, unknown>;
    expect(read.body).toEqual(withoutSecret);

    const { rows } = await pool.query(
      `SELECT secret_encrypted FROM webhooks WHERE company_id = $1`,
      [company.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].secret_encrypted).toMatch(/^v1:/);
    expect(rows[0].secret_encrypted).not.toContain(secret.slice('whsec_'.length, 20));
  });

  it('replaces the settings on a second PUT (200, no secret), with defaults for what is left out', async () => {
    const company = await TestCompany.register(t.http);
    await company
      .put(path(company), { url: HOOK_URL, events: ['campaign.completed'], isActive: false })
      .expect(201);
    const narrowed = await company.get(path(company)).expect(200);
    expect(narrowed.body).toMatchObject({ events: ['campaign.completed'], isActive: false });

    const updated = await company
      .put(path(company), {
        url: 'http://203.0.113.11:8080/v2',
        events: ['campaign.failed', 'campaign.started', 'campaign.failed'],
      })
      .expect(200);
    expect(updated.body).not.toHaveProperty('secret');
    expect(updated.body).toMatchObject({
      url: 'http://203.0.113.11:8080/v2',
      events: ['campaign.started', 'campaign.failed'],
      isActive: true,
    });
    const defaults = await company.put(path(company), { url: HOOK_URL }).expect(200);
    expect(defaults.body).toMatchObject({ events: ALL_EVENTS, isActive: true });
    expect(defaults.body.id).toBe(updated.body.id);
  });

  it('rotates the secret: a new one returned once, the previous one signing for 24 more hours', async () => {
    const company = await TestCompany.register(t.http);
    expectErrorBody(await company.post(path(company, '/rotate-secret')), 404);
    const created = await company.put(path(company), { url: HOOK_URL }).expect(201);
    const before = await pool.query(`SELECT secret_encrypted FROM webhooks WHERE company_id = $1`, [
      company.id,
    ]);

    const rotated = await company.post(path(company, '/rotate-secret')).expect(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    const validUntil = new Date(rotated.body.previousSecretValidUntil).getTime();
    expect(validUntil - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    expect(validUntil - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000);

    const read = await company.get(path(company)).expect(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.body.previousSecretValidUntil).toBe(rotated.body.previousSecretValidUntil);
    const after = await pool.query(
      `SELECT secret_encrypted, previous_secret_encrypted FROM webhooks WHERE company_id = $1`,
      [company.id],
    );
    expect(after.rows[0].previous_secret_encrypted).toBe(before.rows[0].secret_encrypted);
    expect(after.rows[0].secret_encrypted).not.toBe(before.rows[0].secret_encrypted);
  });

  it('deletes the webhook (204), after which every route answers 404', async () => {
    const company = await TestCompany.register(t.http);
    expectErrorBody(await company.delete(path(company)), 404);
    await company.put(path(company), { url: HOOK_URL }).expect(201);
    await company.delete(path(company)).expect(204);
    expectErrorBody(await company.get(path(company)), 404);
    expectErrorBody(await company.delete(path(company)), 404);
    expectErrorBody(await company.get(path(company, '/deliveries')), 404);
    expect(
      (await pool.query(`SELECT 1 FROM webhooks WHERE company_id = $1`, [company.id])).rowCount,
    ).toBe(0);
    // Created again: a new secret, shown again.
    const again = await company.put(path(company), { url: HOOK_URL }).expect(201);
    expect(again.body.secret).toMatch(/^whsec_/);
  });

  it('lists deliveries as a plain array with X-Total-Count, and validates its query', async () => {
    const company = await TestCompany.register(t.http);
    await company.put(path(company), { url: HOOK_URL }).expect(201);
    const empty = await company.get(path(company, '/deliveries')).expect(200);
    expect(empty.body).toEqual([]);
    expect(empty.headers['x-total-count']).toBe('0');
    for (const query of [
      'page=-1',
      'page=x',
      'size=0',
      'size=101',
      'status=SENT',
      'campaignId=0',
      'campaignId=abc',
      'sort=id',
    ]) {
      const message = expectErrorBody(
        await company.get(path(company, `/deliveries?${query}`)),
        400,
      );
      expect(message).toContain(query.split('=')[0]);
    }
    expectErrorBody(await company.get(path(company, '/deliveries/abc/attempts')), 400);
    expectErrorBody(await company.get(path(company, '/deliveries/999999/attempts')), 404);
  });

  describe('refuses bad input with 400', () => {
    let company: TestCompany;
    beforeAll(async () => {
      company = await TestCompany.register(t.http);
    });

    it.each([
      ['no url', {}, /url=é obrigatória/],
      ['a blank url', { url: '  ' }, /url=é obrigatória/],
      ['a url that is not text', { url: 42 }, /url=é obrigatória/],
      ['a url that is not a URL', { url: 'hooks.example.com' }, /url=deve ser uma URL/],
      ['an ftp url', { url: 'ftp://hooks.example.com/x' }, /url=deve ser uma URL/],
      ['a url with credentials', { url: 'https://u:p@hooks.example.com/' }, /url=deve ser uma URL/],
      [
        'the cloud metadata address',
        { url: 'http://169.254.169.254/latest/meta-data/' },
        /url=aponta para um endereço de rede não permitido/,
      ],
      [
        'another link-local address',
        { url: 'http://169.254.10.20:8080/hook' },
        /url=aponta para um endereço de rede não permitido/,
      ],
      [
        'an IPv6 link-local address',
        { url: 'http://[fe80::1]/hook' },
        /url=aponta para um endereço de rede não permitido/,
      ],
      [
        'a host that does not resolve',
        { url: 'https://no-such-host.invalid/hook' },
        /url=tem um host que não foi encontrado \(DNS\)/,
      ],
      [
        'a url longer than 2000 characters',
        { url: `https://hooks.example.com/${'a'.repeat(2000)}` },
        /url=deve ter no máximo 2000 caracteres/,
      ],
      [
        'an unknown event',
        { url: HOOK_URL, events: ['campaign.started', 'campaign.deleted'] },
        /events=cada evento deve ser um de: campaign.started, campaign.progress, campaign.completed, campaign.failed, campaign.paused, campaign.retried, campaign.sender_lost, contact.opted_out/,
      ],
      [
        'an event in another case',
        { url: HOOK_URL, events: ['CAMPAIGN.STARTED'] },
        /events=cada evento/,
      ],
      ['an empty event list', { url: HOOK_URL, events: [] }, /events=deve ter ao menos 1 evento/],
      [
        'events that are not a list',
        { url: HOOK_URL, events: 'campaign.started' },
        /events=deve ser uma lista/,
      ],
      ['events set to null', { url: HOOK_URL, events: null }, /events=deve ser uma lista/],
      [
        'isActive that is not a boolean',
        { url: HOOK_URL, isActive: 'yes' },
        /isActive=deve ser verdadeiro ou falso/,
      ],
      [
        'isActive set to null',
        { url: HOOK_URL, isActive: null },
        /isActive=deve ser verdadeiro ou falso/,
      ],
      [
        'an unknown field',
        { url: HOOK_URL, evnts: ['campaign.started'] },
        /evnts=campo desconhecido/,
      ],
      [
        'a secret (it is generated, never given)',
        { url: HOOK_URL, secret: 'whsec_abc' },
        /secret=campo desconhecido/,
      ],
    ])('%s', async (_case, body, message) => {
      const response = await company.put(path(company), body);
      expect(expectErrorBody(response, 400, path(company))).toMatch(message);
      expectErrorBody(await company.get(path(company)), 404);
    });

    it('a body that is not a JSON object', async () => {
      const response = await t.http
        .put(path(company))
        .set(company.auth)
        .set('Content-Type', 'application/json')
        .send('["https://hooks.example.com"]');
      expectErrorBody(response, 400);
    });

    it('a companyId that is not a number', async () => {
      expectErrorBody(await company.put('/api/companies/abc/webhook', { url: HOOK_URL }), 400);
    });
  });

  it('answers 403 on every route for another company, and 401 without a token', async () => {
    const owner = await TestCompany.register(t.http);
    const intruder = await TestCompany.register(t.http);
    await owner.put(path(owner), { url: HOOK_URL }).expect(201);
    const foreign = path(owner);
    expectErrorBody(await intruder.get(foreign), 403, foreign);
    expectErrorBody(await intruder.put(foreign, { url: 'https://203.0.113.66/' }), 403);
    expectErrorBody(await intruder.delete(foreign), 403);
    expectErrorBody(await intruder.post(`${foreign}/rotate-secret`), 403);
    expectErrorBody(await intruder.get(`${foreign}/deliveries`), 403);
    expectErrorBody(await intruder.get(`${foreign}/deliveries/1/attempts`), 403);
    expectErrorBody(await t.http.get(foreign), 401);
    const untouched = await owner.get(foreign).expect(200);
    expect(untouched.body.url).toBe(HOOK_URL);
  });

  it('refuses loopback and private targets with OUTBOUND_DENY_PRIVATE=true', async () => {
    const denying = await startAppOn(t.databaseUrl, {
      ENCRYPTION_KEY,
      OUTBOUND_DENY_PRIVATE: 'true',
      ROLE: 'api',
    });
    try {
      const company = await TestCompany.register(denying.http);
      for (const url of [
        'http://127.0.0.1:8080/hook',
        'http://10.1.2.3/hook',
        'http://localhost/x',
      ]) {
        const message = expectErrorBody(await company.put(path(company), { url }), 400);
        expect(message).toBe('{url=aponta para um endereço de rede não permitido}');
      }
      await company.put(path(company), { url: 'http://93.184.215.14/hook' }).expect(201);
    } finally {
      await denying.close();
    }
  });
});
