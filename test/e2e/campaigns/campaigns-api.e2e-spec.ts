import { campaignBody, connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { ADMIN_HEADER, TestCompany } from '../../support/test-app';
import { sleep } from '../../support/waiting';

const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

function localIn(minutes: number): string {
  // APP_TIMEZONE is America/Sao_Paulo (UTC-3, no daylight saving since 2019).
  const date = new Date(Date.now() + minutes * 60_000 - 3 * 3600_000);
  return date.toISOString().slice(0, 19);
}

describe('campaigns API', () => {
  const { t, fake } = useE2eFixture();

  describe('POST /api/campaigns', () => {
    it('creates an ACTIVE campaign with every CampaignResponse field and sends it', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const response = await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, { description: 'Oferta', notificationPhone: '11999990000' }),
        )
        .expect(200);
      const c = response.body;
      expect(c).toMatchObject({
        id: expect.any(Number),
        name: 'Campanha de teste',
        description: 'Oferta',
        status: 'ACTIVE',
        type: 'TEXT',
        totalContacts: 3,
        sentContacts: 0,
        failedContacts: 0,
        pendingContacts: 3,
        progressPercentage: 0,
        successRate: 0,
        messageContent: 'Olá {PrimeiroNome}, tudo bem?',
        mediaType: null,
        mediaUrl: null,
        fileName: null,
        gatewayInstance: gw.instance,
        minInterval: 0,
        maxInterval: 0,
        notificationPhone: '5511999990000',
        pollData: null,
        gatewayConfig: {
          id: expect.any(Number),
          name: gw.instance,
          url: fake.url,
          instance: gw.instance,
        },
        blockedContactsRemoved: 0,
        message: null,
        scheduledFor: null,
        completedAt: null,
        pausedAt: null,
      });
      expect(c.createdAt).toMatch(LOCAL_DATE_TIME);
      expect(c.startedAt).toMatch(LOCAL_DATE_TIME);
      expect(JSON.stringify(c)).not.toContain(gw.apiKey);
      const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED');
      expect(done).toMatchObject({
        sentContacts: 3,
        pendingContacts: 0,
        progressPercentage: 100,
        successRate: 100,
      });
      expect(done.completedAt).toMatch(LOCAL_DATE_TIME);
      expect(fake.sentTo('5511987650001').map((s) => s.body.text)).toEqual([
        'Olá Maria, tudo bem?',
      ]);
      expect(fake.sentTo('5511987650002').map((s) => s.body.text)).toEqual(['Olá João, tudo bem?']);
      expect(fake.sentTo('5511987650003').map((s) => s.body.text)).toEqual(['Olá , tudo bem?']);
    });

    it('normalizes contacts, drops invalid numbers and duplicates (first kept)', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const response = await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            isDraft: true,
            contacts: [
              { phoneNumber: '(11) 98765-1001', name: 'Primeira' },
              { phoneNumber: '+55 11 98765-1001', name: 'Repetida' },
              { phoneNumber: '5511987651002' },
              { phoneNumber: '123' },
              { phoneNumber: 'não é telefone' },
            ],
          }),
        )
        .expect(200);
      expect(response.body.totalContacts).toBe(2);
      const contacts = (
        await company.get(`/api/campaigns/${response.body.id}/contacts`).expect(200)
      ).body;
      expect(
        contacts.map((x: { phoneNumber: string; name: string }) => [x.phoneNumber, x.name]),
      ).toEqual([
        ['5511987651001', 'Primeira'],
        ['5511987651002', ''],
      ]);
    });

    it('removes block-listed numbers in SQL and reports blockedContactsRemoved', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      await company
        .post(`/api/companies/${company.id}/blocked-contacts`, { phoneNumber: '11987650002' })
        .expect(201);
      const response = await company.post('/api/campaigns', campaignBody(fake, gw)).expect(200);
      expect(response.body).toMatchObject({ totalContacts: 2, blockedContactsRemoved: 1 });
      await waitForCampaign(company, response.body.id, (x) => x.status === 'COMPLETED');
      expect(fake.sentTo('5511987650002').filter((s) => s.instance === gw.instance)).toHaveLength(
        0,
      );
    });

    it('ignores the block list when the company turned smart blocking off', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      await company
        .post(`/api/companies/${company.id}/blocked-contacts`, { phoneNumber: '11987650002' })
        .expect(201);
      await company
        .patch(`/api/companies/${company.id}/settings`, { blockedContactsEnabled: false })
        .expect(200);
      const response = await company
        .post('/api/campaigns', campaignBody(fake, gw, { isDraft: true }))
        .expect(200);
      expect(response.body).toMatchObject({ totalContacts: 3, blockedContactsRemoved: 0 });
    });

    it('refuses a campaign whose every valid contact is blocked, creating nothing', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      await company
        .post(`/api/companies/${company.id}/blocked-contacts`, { phoneNumber: '11987650009' })
        .expect(201);
      const response = await company.post(
        '/api/campaigns',
        campaignBody(fake, gw, { contacts: [{ phoneNumber: '11987650009' }] }),
      );
      expectErrorBody(response, 400);
      expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(0);
    });

    it('saves a DRAFT without checking the gateway and without sending', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      fake.setState(gw.instance, 'close');
      const response = await company
        .post('/api/campaigns', campaignBody(fake, gw, { isDraft: true, message: undefined }))
        .expect(200);
      expect(response.body.status).toBe('DRAFT');
      expect(response.body.startedAt).toBeNull();
      // A real span: the engine, idle, would have sent an ACTIVE campaign in it.
      await sleep(300);
      expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(0);
      const cancelled = await company.put(`/api/campaigns/${response.body.id}/cancel`).expect(200);
      expect(cancelled.body.status).toBe('CANCELLED');
    });

    it('schedules a campaign for a local time and starts it when that time comes', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const scheduledFor = localIn(10);
      const response = await company
        .post('/api/campaigns', campaignBody(fake, gw, { scheduledFor }))
        .expect(200);
      expect(response.body).toMatchObject({ status: 'SCHEDULED', scheduledFor, startedAt: null });
      // A real span: the engine, idle, would have sent an ACTIVE campaign in it.
      await sleep(300);
      expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(0);
      // Time passes: move the schedule into the past, as the clock would.
      await db().query(
        `UPDATE campaigns SET scheduled_for = now() - interval '1 second' WHERE id = $1`,
        [response.body.id],
      );
      const done = await waitForCampaign(
        company,
        response.body.id,
        (x) => x.status === 'COMPLETED',
      );
      expect(done.startedAt).toMatch(LOCAL_DATE_TIME);
      expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(3);
      const events = await db().query(
        `SELECT event_type FROM outbox_events WHERE campaign_id = $1 ORDER BY id`,
        [response.body.id],
      );
      expect(events.rows[0].event_type).toBe('campaign.started');
    });

    it('accepts scheduledFor without seconds', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const scheduledFor = localIn(30).slice(0, 16);
      const response = await company
        .post('/api/campaigns', campaignBody(fake, gw, { scheduledFor }))
        .expect(200);
      expect(response.body.scheduledFor).toBe(`${scheduledFor}:00`);
    });

    it('uses a saved gateway configuration by gatewayConfigId', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const config = await company
        .post('/api/gateway-configs', {
          name: 'Principal',
          url: fake.url,
          apiKey: gw.apiKey,
          instance: gw.instance,
        })
        .expect(201);
      const body = campaignBody(fake, gw, { gatewayConfigId: config.body.id });
      delete body.gatewayUrl;
      delete body.gatewayApiKey;
      delete body.gatewayInstance;
      const response = await company.post('/api/campaigns', body).expect(200);
      expect(response.body.gatewayConfig).toEqual({
        id: config.body.id,
        name: 'Principal',
        url: fake.url,
        instance: gw.instance,
      });
      await waitForCampaign(company, response.body.id, (x) => x.status === 'COMPLETED');
      expect(
        fake.requests
          .filter((r) => r.instance === gw.instance)
          .every((r) => r.headers.apikey === gw.apiKey),
      ).toBe(true);
    });

    it('stores inline gateway credentials once, encrypted, and reuses the configuration', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const first = await company
        .post('/api/campaigns', campaignBody(fake, gw, { isDraft: true }))
        .expect(200);
      const second = await company
        .post('/api/campaigns', campaignBody(fake, gw, { isDraft: true }))
        .expect(200);
      expect(second.body.gatewayConfig.id).toBe(first.body.gatewayConfig.id);
      const stored = async (): Promise<Array<{ api_key_encrypted: string; updated_at: Date }>> =>
        (
          await db().query(
            `SELECT api_key_encrypted, updated_at FROM gateway_configs WHERE company_id = $1`,
            [company.id],
          )
        ).rows;
      const rows = await stored();
      expect(rows).toHaveLength(1);
      expect(rows[0].api_key_encrypted).not.toContain(gw.apiKey);

      await company.post('/api/campaigns', campaignBody(fake, gw, { isDraft: true })).expect(200);
      expect(await stored()).toEqual(rows);

      // The key is rotated on the gateway first: a new inline key is saved only once accepted.
      const rotated = { instance: gw.instance, apiKey: `${gw.apiKey}-nova` };
      fake.addInstance(gw.instance, { apiKey: rotated.apiKey, state: 'open' });
      const third = await company
        .post('/api/campaigns', campaignBody(fake, rotated, { isDraft: true }))
        .expect(200);
      expect(third.body.gatewayConfig.id).toBe(first.body.gatewayConfig.id);
      const after = await stored();
      expect(after).toHaveLength(1);
      expect(after[0].api_key_encrypted).not.toBe(rows[0].api_key_encrypted);
    });

    describe('gateway check on creation', () => {
      it.each([
        [
          'an unknown instance',
          (gw: { instance: string; apiKey: string }) => ({ gatewayInstance: `${gw.instance}-x` }),
          /inst/i,
        ],
        ['a refused API key', () => ({ gatewayApiKey: 'wrong-key' }), /credenciais/i],
      ])('answers 400 for %s', async (_label, change, pattern) => {
        const company = await TestCompany.register(t.http);
        const gw = connectedInstance(fake);
        const response = await company.post('/api/campaigns', campaignBody(fake, gw, change(gw)));
        expect(expectErrorBody(response, 400)).toMatch(pattern);
        expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(0);
      });

      it('answers 400 when the instance is not connected', async () => {
        const company = await TestCompany.register(t.http);
        const gw = connectedInstance(fake);
        fake.setState(gw.instance, 'connecting');
        const response = await company.post('/api/campaigns', campaignBody(fake, gw));
        expect(expectErrorBody(response, 400)).toMatch(/conectada/);
        expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(0);
      });
    });

    describe('bad input', () => {
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['no name', { name: undefined }, 'name'],
        ['a one-character name', { name: 'A' }, 'name'],
        ['a 101-character name', { name: 'n'.repeat(101) }, 'name'],
        ['a name of one character between blanks', { name: '  A  ' }, 'name'],
        ['no message', { message: undefined }, 'message'],
        ['a blank message', { message: '   ' }, 'message'],
        ['a 4097-character message', { message: 'm'.repeat(4097) }, 'message'],
        ['a message with a brace never closed', { message: '{Olá|Oi {PrimeiroNome}' }, 'message'],
        ['a message with a brace never opened', { message: 'Olá PrimeiroNome}' }, 'message'],
        ['a message with empty braces', { message: 'Olá {} tudo bem?' }, 'message'],
        ['a group of variants all blank', { message: 'Olá { | } {PrimeiroNome}' }, 'message'],
        [
          'a group of 21 variants',
          { message: `{${Array.from({ length: 21 }, (_v, i) => `Olá ${i}`).join('|')}}` },
          'message',
        ],
        ['groups of variants 4 deep', { message: '{a|{b|{c|{d|e}}}}' }, 'message'],
        ['braces nested 11 deep', { message: `${'{'.repeat(11)}x${'}'.repeat(11)}` }, 'message'],
        ['a draft with a brace never closed', { isDraft: true, message: 'Oi {' }, 'message'],
        [
          'a caption with a brace never closed',
          { mediaUrl: 'https://cdn.example.com/a.jpg', caption: '{Oferta|Promoção' },
          'caption',
        ],
        [
          'a poll question with a group of variants all blank',
          { pollData: { name: 'Qual {|}?', options: ['a', 'b'], selectableCount: 1 } },
          'pollData.name',
        ],
        ['no contacts', { contacts: undefined }, 'contacts'],
        ['an empty contact list', { contacts: [] }, 'contacts'],
        ['contacts that are not a list', { contacts: 'x' }, 'contacts'],
        ['a contact without phoneNumber', { contacts: [{ name: 'Sem telefone' }] }, 'contacts'],
        [
          'a contact with a numeric phoneNumber',
          { contacts: [{ phoneNumber: 11987650001 }] },
          'contacts',
        ],
        [
          'a contact name over 100 characters',
          { contacts: [{ phoneNumber: '11987650001', name: 'n'.repeat(101) }] },
          'contacts',
        ],
        [
          'an unknown contact field',
          { contacts: [{ phoneNumber: '11987650001', email: 'a@b.c' }] },
          'contacts',
        ],
        [
          'no valid contact at all',
          { contacts: [{ phoneNumber: '123' }, { phoneNumber: 'abc' }] },
          'contacts',
        ],
        [
          'no gateway at all',
          { gatewayUrl: undefined, gatewayApiKey: undefined, gatewayInstance: undefined },
          'gatewayUrl',
        ],
        ['no gateway API key', { gatewayApiKey: undefined }, 'gatewayApiKey'],
        ['no gateway instance', { gatewayInstance: undefined }, 'gatewayInstance'],
        ['a gateway URL that is not a URL', { gatewayUrl: 'gateway' }, 'gatewayUrl'],
        ['a gateway URL with a query', { gatewayUrl: 'https://gw.example.com/?a=1' }, 'gatewayUrl'],
        [
          'a gateway URL with credentials',
          { gatewayUrl: 'https://user:secret@gw.example.com' },
          'gatewayUrl',
        ],
        [
          'a poll with one option',
          { pollData: { name: 'P?', options: ['A'], selectableCount: 1 } },
          'pollData.options',
        ],
        [
          'a poll with 11 options',
          { pollData: { name: 'P?', options: 'abcdefghijk'.split(''), selectableCount: 1 } },
          'pollData.options',
        ],
        [
          'a poll with repeated options',
          { pollData: { name: 'P?', options: ['Sim', 'sim'], selectableCount: 1 } },
          'pollData.options',
        ],
        [
          'a poll option over 100 characters',
          { pollData: { name: 'P?', options: ['a'.repeat(101), 'b'], selectableCount: 1 } },
          'pollData.options',
        ],
        [
          'a poll name over 280 characters',
          { pollData: { name: 'p'.repeat(281), options: ['a', 'b'], selectableCount: 1 } },
          'pollData.name',
        ],
        [
          'a poll selectableCount of 0',
          { pollData: { name: 'P?', options: ['a', 'b'], selectableCount: 0 } },
          'pollData.selectableCount',
        ],
        [
          'a poll selectableCount over its options',
          { pollData: { name: 'P?', options: ['a', 'b'], selectableCount: 3 } },
          'pollData.selectableCount',
        ],
        [
          'an unknown poll field',
          { pollData: { name: 'P?', options: ['a', 'b'], selectableCount: 1, x: 1 } },
          'pollData.x',
        ],
        ['scheduledFor in 4 minutes', { scheduledFor: localIn(4) }, 'scheduledFor'],
        ['scheduledFor in the past', { scheduledFor: '2020-01-01T10:00:00' }, 'scheduledFor'],
        ['scheduledFor with a zone', { scheduledFor: '2030-01-01T10:00:00Z' }, 'scheduledFor'],
        ['scheduledFor that is no date', { scheduledFor: 'amanhã' }, 'scheduledFor'],
        ['a misspelled field', { shceduledFor: '2030-01-01T10:00:00' }, 'shceduledFor'],
        [
          'intervalMinSeconds over intervalMaxSeconds',
          { intervalMinSeconds: 10, intervalMaxSeconds: 5 },
          'intervalMinSeconds',
        ],
        ['a negative interval', { intervalMinSeconds: -1 }, 'intervalMinSeconds'],
        ['an interval over 3600', { intervalMaxSeconds: 3601 }, 'intervalMaxSeconds'],
        ['a fractional interval', { intervalMinSeconds: 1.5 }, 'intervalMinSeconds'],
        [
          'a caption over 1024 characters',
          { mediaUrl: 'https://cdn.example.com/a.jpg', caption: 'c'.repeat(1025) },
          'caption',
        ],
        ['a media URL that is neither URL nor data URI', { mediaUrl: 'ftp://x/y.jpg' }, 'mediaUrl'],
        [
          'a media kind that cannot be detected',
          { mediaUrl: 'https://cdn.example.com/download' },
          'mediaType',
        ],
        [
          'an unknown mediaType',
          { mediaUrl: 'https://cdn.example.com/a.jpg', mediaType: 'sticker' },
          'mediaType',
        ],
        ['an invalid notificationPhone', { notificationPhone: '12' }, 'notificationPhone'],
        ['isDraft that is not a boolean', { isDraft: 'yes' }, 'isDraft'],
        ['a gatewayConfigId that is not a number', { gatewayConfigId: 'um' }, 'gatewayConfigId'],
      ];

      it.each(cases)(
        'refuses %s with 400 naming the field, creating nothing',
        async (_label, change, field) => {
          const company = await TestCompany.register(t.http);
          const gw = connectedInstance(fake);
          const body = campaignBody(fake, gw, change);
          for (const [key, value] of Object.entries(change)) {
            if (value === undefined) {
              delete body[key];
            }
          }
          const response = await company.post('/api/campaigns', body);
          const message = expectErrorBody(response, 400, '/api/campaigns');
          expect(message.startsWith('{')).toBe(true);
          expect(message).toContain(`${field}=`);
          expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(0);
          expect(await countRows('gateway_configs', 'company_id = $1', [company.id])).toBe(0);
        },
      );

      it('refuses malformed JSON with 400', async () => {
        const company = await TestCompany.register(t.http);
        const response = await company
          .post('/api/campaigns')
          .set('Content-Type', 'application/json')
          .send('{"name":');
        expectErrorBody(response, 400);
      });

      it('refuses a poll campaign when polls are disabled for the company', async () => {
        const company = await TestCompany.register(t.http);
        const gw = connectedInstance(fake);
        await company
          .patch(`/api/companies/${company.id}/settings`, { pollCampaignsEnabled: false })
          .expect(200);
        const response = await company.post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            message: undefined,
            pollData: { name: 'Melhor dia?', options: ['Sáb', 'Dom'], selectableCount: 1 },
          }),
        );
        expect(expectErrorBody(response, 400)).toMatch(/enquete/);
      });

      it('refuses a databaseConfigId the company does not have', async () => {
        const company = await TestCompany.register(t.http);
        const gw = connectedInstance(fake);
        const response = await company.post(
          '/api/campaigns',
          campaignBody(fake, gw, { databaseConfigId: 999999 }),
        );
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(0);
      });
    });

    it('limits non-test creations per hour with 429 and Retry-After; test campaigns do not count', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      await t.http
        .patch(`/api/admin/companies/${company.id}`)
        .set(ADMIN_HEADER)
        .send({ campaignCreationsPerHour: 2 })
        .expect(200);
      // Launched campaigns count (scheduled ones here, which send nothing); drafts count once
      // launched (docs/API-RULES.md, "Drafts: edit and launch").
      const later = { scheduledFor: localIn(60) };
      await company.post('/api/campaigns', campaignBody(fake, gw, later)).expect(200);
      await company.post('/api/campaigns', campaignBody(fake, gw, later)).expect(200);
      const test = await company
        .post('/api/campaigns', campaignBody(fake, gw, { ...later, isTest: true }))
        .expect(200);
      // isTest is returned as given, in every campaign response.
      expect(test.body.isTest).toBe(true);
      expect((await company.get(`/api/campaigns/${test.body.id}`).expect(200)).body.isTest).toBe(
        true,
      );
      const listed = (await company.get('/api/campaigns').expect(200)).body as Array<{
        id: number;
        isTest: boolean;
      }>;
      expect(listed.map((c) => [c.id === test.body.id, c.isTest])).toEqual(
        listed.map((c) => [c.id === test.body.id, c.id === test.body.id]),
      );
      const refused = await company.post('/api/campaigns', campaignBody(fake, gw, later));
      expectErrorBody(refused, 429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(3);
    });
  });

  describe('reading campaigns', () => {
    it('lists newest first with a status filter, paging and X-Total-Count', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const ids: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        ids.push(
          (
            await company
              .post(
                '/api/campaigns',
                campaignBody(fake, gw, { isDraft: true, name: `Rascunho ${i}` }),
              )
              .expect(200)
          ).body.id,
        );
      }
      await company.put(`/api/campaigns/${ids[0]}/cancel`).expect(200);
      const all = await company.get('/api/campaigns').expect(200);
      expect(all.body.map((c: { id: number }) => c.id)).toEqual([...ids].reverse());
      expect(all.headers['x-total-count']).toBe('3');
      const drafts = await company.get('/api/campaigns?status=DRAFT').expect(200);
      expect(drafts.body.map((c: { id: number }) => c.id)).toEqual([ids[2], ids[1]]);
      const page = await company.get('/api/campaigns?page=1&size=2').expect(200);
      expect(page.body.map((c: { id: number }) => c.id)).toEqual([ids[0]]);
      expectErrorBody(await company.get('/api/campaigns?status=RUNNING'), 400);
      expectErrorBody(await company.get('/api/campaigns?size=101'), 400);
      expectErrorBody(await company.get('/api/campaigns?page=-1'), 400);
      expectErrorBody(await company.get('/api/campaigns?page=abc'), 400);
    });

    it('lists only ACTIVE campaigns at /active', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      await company.post('/api/campaigns', campaignBody(fake, gw, { isDraft: true })).expect(200);
      const active = await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            intervalMinSeconds: 30,
            intervalMaxSeconds: 30,
            contacts: phones(3),
          }),
        )
        .expect(200);
      const list = await company.get('/api/campaigns/active').expect(200);
      expect(list.body.map((c: { id: number }) => c.id)).toEqual([active.body.id]);
      expect(list.body[0].startedAt).toMatch(LOCAL_DATE_TIME);
      expect(list.body[0].estimatedCompletion).toMatch(LOCAL_DATE_TIME);
      await company.put(`/api/campaigns/${active.body.id}/cancel`).expect(200);
    });

    it('answers 404 for a missing campaign and 403 for another company’s, on every route', async () => {
      const owner = await TestCompany.register(t.http);
      const other = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const id = (
        await owner.post('/api/campaigns', campaignBody(fake, gw, { isDraft: true })).expect(200)
      ).body.id;
      expectErrorBody(await other.get(`/api/campaigns/${id}`), 403);
      expectErrorBody(await other.get(`/api/campaigns/${id}/contacts`), 403);
      expectErrorBody(await other.put(`/api/campaigns/${id}/pause`), 403);
      expectErrorBody(await other.put(`/api/campaigns/${id}/resume`), 403);
      expectErrorBody(await other.put(`/api/campaigns/${id}/cancel`), 403);
      expectErrorBody(await other.post(`/api/campaigns/${id}/retry-failed`), 403);
      expect((await owner.get(`/api/campaigns/${id}`).expect(200)).body.status).toBe('DRAFT');
      expect((await other.get('/api/campaigns').expect(200)).body).toEqual([]);
      expectErrorBody(await owner.get('/api/campaigns/999999'), 404);
      expectErrorBody(await owner.put('/api/campaigns/999999/cancel'), 404);
      expectErrorBody(await owner.get('/api/campaigns/abc'), 400);
    });

    it('pages campaign contacts (plain array, size up to 100) and answers 400 for a missing campaign', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const created = (
        await company
          .post('/api/campaigns', campaignBody(fake, gw, { isDraft: true, contacts: phones(150) }))
          .expect(200)
      ).body;
      const id = created.id;
      const first = await company.get(`/api/campaigns/${id}/contacts`).expect(200);
      expect(first.body).toHaveLength(100);
      expect(first.headers['x-total-count']).toBe('150');
      expect(first.body[0]).toEqual({
        id: expect.any(Number),
        phoneNumber: '5511980000000',
        name: 'Contato 0',
        status: 'PENDING',
        retryCount: 0,
        sentText: null,
        warm: false,
        sender: { gatewayConfigId: created.gatewayConfig.id, instance: gw.instance },
      });
      const last = await company.get(`/api/campaigns/${id}/contacts?page=1&size=100`).expect(200);
      expect(last.body).toHaveLength(50);
      const small = await company.get(`/api/campaigns/${id}/contacts?page=2&size=10`).expect(200);
      expect(small.body.map((c: { name: string }) => c.name)).toEqual(
        phones(10, 20).map((p) => p.name),
      );
      expectErrorBody(await company.get(`/api/campaigns/${id}/contacts?size=101`), 400);
      expect(expectErrorBody(await company.get('/api/campaigns/999999/contacts'), 400)).toBe(
        'Campanha não encontrada',
      );
    });
  });

  describe('state changes', () => {
    it('refuses illegal moves with 400 and leaves the campaign as it was', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const scheduled = (
        await company
          .post('/api/campaigns', campaignBody(fake, gw, { scheduledFor: localIn(20) }))
          .expect(200)
      ).body;
      expect(
        expectErrorBody(await company.put(`/api/campaigns/${scheduled.id}/pause`), 400),
      ).toMatch(/cancele/);
      expectErrorBody(await company.put(`/api/campaigns/${scheduled.id}/resume`), 400);
      expect((await company.get(`/api/campaigns/${scheduled.id}`)).body.status).toBe('SCHEDULED');
      const cancelled = await company.put(`/api/campaigns/${scheduled.id}/cancel`).expect(200);
      expect(cancelled.body.status).toBe('CANCELLED');
      expect(cancelled.body.completedAt).toMatch(LOCAL_DATE_TIME);
      expectErrorBody(await company.put(`/api/campaigns/${scheduled.id}/cancel`), 400);
      expectErrorBody(await company.put(`/api/campaigns/${scheduled.id}/pause`), 400);

      const completed = (await company.post('/api/campaigns', campaignBody(fake, gw)).expect(200))
        .body;
      await waitForCampaign(company, completed.id, (x) => x.status === 'COMPLETED');
      expectErrorBody(await company.put(`/api/campaigns/${completed.id}/cancel`), 400);
      expectErrorBody(await company.put(`/api/campaigns/${completed.id}/pause`), 400);
      expect((await company.get(`/api/campaigns/${completed.id}`)).body.status).toBe('COMPLETED');
    });
  });
});
