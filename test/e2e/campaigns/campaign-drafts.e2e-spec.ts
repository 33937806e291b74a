import { Clock } from '../../../src/common/time/clock';
import {
  campaignBody,
  connectedConfig,
  connectedInstance,
  phones,
  waitForCampaign,
} from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { pngImage } from '../../support/media';
import { expectErrorBody } from '../../support/error-body';
import { ADMIN_HEADER, TestCompany } from '../../support/test-app';
import { sleep } from '../../support/waiting';

function localIn(minutes: number): string {
  // APP_TIMEZONE is America/Sao_Paulo (UTC-3, no daylight saving since 2019).
  const date = new Date(Date.now() + minutes * 60_000 - 3 * 3600_000);
  return date.toISOString().slice(0, 19);
}

/** The campaign's contacts as listed, in order: phone and name. */
async function contactsOf(company: TestCompany, id: number): Promise<string[]> {
  const listed = (await company.get(`/api/campaigns/${id}/contacts`).expect(200)).body;
  return listed.map((c: { phoneNumber: string; name: string | null }) => c.phoneNumber).sort();
}

/** The outbox events the campaign wrote, by type. */
async function eventsOf(id: number): Promise<string[]> {
  const { rows } = await db().query<{ event_type: string }>(
    `SELECT event_type FROM outbox_events WHERE campaign_id = $1 ORDER BY id`,
    [id],
  );
  return rows.map((row) => row.event_type);
}

/** The campaign's rows and contacts as stored: the pool's senders and who holds each contact. */
async function storedShape(id: number): Promise<{
  poolId: number | null;
  senders: Array<{ id: number; config: number; status: string; total: number }>;
  holders: Record<string, number>;
}> {
  const campaign = await db().query(`SELECT pool_id FROM campaigns WHERE id = $1`, [id]);
  const senders = await db().query(
    `SELECT id, gateway_config_id AS config, status, total_contacts AS total FROM campaigns
      WHERE pool_id = $1 AND id <> $1 ORDER BY id`,
    [id],
  );
  const contacts = await db().query(
    `SELECT c.phone_number, c.campaign_id FROM campaign_contacts c
      WHERE c.campaign_id = $1 OR c.campaign_id IN (SELECT id FROM campaigns WHERE pool_id = $1)`,
    [id],
  );
  return {
    poolId: campaign.rows[0].pool_id,
    senders: senders.rows,
    holders: Object.fromEntries(contacts.rows.map((r) => [r.phone_number, r.campaign_id])),
  };
}

describe('drafts: edit and launch', () => {
  const {
    t,
    fake,
    companies: [company, other],
  } = useE2eFixture({
    env: { CAMPAIGN_CREATIONS_PER_HOUR: '100' },
    companies: 2,
    noRefusals: true,
  });

  async function draft(overrides: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const gw = connectedInstance(fake);
    return (
      await company
        .post('/api/campaigns', campaignBody(fake, gw, { isDraft: true, ...overrides }))
        .expect(200)
    ).body;
  }

  describe('PUT /api/campaigns/{id}', () => {
    it('replaces the contacts and the message of a draft, which once launched sends once to each edited contact and to nobody removed', async () => {
      const owner = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const created = (
        await owner
          .post('/api/campaigns', campaignBody(fake, gw, { isDraft: true, message: 'Primeira' }))
          .expect(200)
      ).body;
      await owner
        .post(`/api/companies/${owner.id}/blocked-contacts`, { phoneNumber: '11987651009' })
        .expect(201);
      const edited = await owner
        .put(`/api/campaigns/${created.id}`, {
          message: 'Oi {PrimeiroNome}, versão final',
          contacts: [
            { phoneNumber: '11987650002', name: 'João Pedro Lima' },
            { phoneNumber: '11987651001', name: 'Ana Clara' },
            { phoneNumber: '(11) 98765-1002', name: 'Bruno' },
            { phoneNumber: '11987651001', name: 'Ana repetida' },
            { phoneNumber: 'não é número' },
            { phoneNumber: '11987651009', name: 'Bloqueado' },
          ],
        })
        .expect(200);
      expect(edited.body).toMatchObject({
        id: created.id,
        status: 'DRAFT',
        messageContent: 'Oi {PrimeiroNome}, versão final',
        totalContacts: 3,
        pendingContacts: 3,
        blockedContactsRemoved: 1,
      });
      expect(await contactsOf(owner, created.id)).toEqual([
        '5511987650002',
        '5511987651001',
        '5511987651002',
      ]);
      expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(0);

      const launched = await owner.post(`/api/campaigns/${created.id}/launch`).expect(200);
      expect(launched.body).toMatchObject({ status: 'ACTIVE', totalContacts: 3 });
      expect(launched.body.startedAt).toEqual(expect.any(String));
      const done = await waitForCampaign(owner, created.id, (c) => c.status === 'COMPLETED');
      expect(done).toMatchObject({ sentContacts: 3, failedContacts: 0 });
      expect(fake.sentTo('5511987650002').map((s) => s.body.text)).toEqual([
        'Oi João, versão final',
      ]);
      expect(fake.sentTo('5511987651001').map((s) => s.body.text)).toEqual([
        'Oi Ana, versão final',
      ]);
      expect(fake.sentTo('5511987651002')).toHaveLength(1);
      for (const removed of ['5511987650001', '5511987650003', '5511987651009']) {
        expect(
          fake.sent.filter((s) => s.instance === gw.instance && s.number.includes(removed)),
        ).toHaveLength(0);
      }
      expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(3);
      expect(await eventsOf(created.id)).toEqual(
        expect.arrayContaining(['campaign.started', 'campaign.completed']),
      );
      expect((await eventsOf(created.id)).filter((e) => e === 'campaign.started')).toHaveLength(1);
    });

    it('keeps every field left out, and clears an optional one given null', async () => {
      const created = await draft({
        description: 'Antes',
        notificationPhone: '11999990000',
        intervalMinSeconds: 7,
        intervalMaxSeconds: 9,
        longPauseEvery: 50,
        longPauseSeconds: [300, 600],
        sendingWindow: {
          days: [1, 2, 3],
          start: '09:00',
          end: '18:00',
          timezone: 'America/Sao_Paulo',
        },
        scheduledFor: localIn(120),
        warmFirst: true,
      });
      const renamed = await company
        .put(`/api/campaigns/${created.id}`, { name: 'Outro nome' })
        .expect(200);
      const { name, updatedAt: _u1, ...kept } = renamed.body;
      const { name: _n, updatedAt: _u2, ...before } = created;
      expect(name).toBe('Outro nome');
      expect(kept).toEqual(before);
      expect(await contactsOf(company, created.id)).toHaveLength(3);

      const cleared = await company
        .put(`/api/campaigns/${created.id}`, { description: null, scheduledFor: null })
        .expect(200);
      expect(cleared.body).toMatchObject({
        name: 'Outro nome',
        description: null,
        scheduledFor: null,
        notificationPhone: '5511999990000',
        minInterval: 7,
        maxInterval: 9,
        status: 'DRAFT',
      });
      const stored = await db().query(
        `SELECT long_pause_every, long_pause_min, long_pause_max, warm_first, sending_window
           FROM campaigns WHERE id = $1`,
        [created.id],
      );
      expect(stored.rows[0]).toMatchObject({
        long_pause_every: 50,
        long_pause_min: 300,
        long_pause_max: 600,
        warm_first: true,
        sending_window: { days: [1, 2, 3], start: '09:00', end: '18:00' },
      });
    });

    it('turns a draft into a media message and back, its media checked and its type detected again', async () => {
      const created = await draft();
      const png = `data:image/png;base64,${pngImage().toString('base64')}`;
      const withMedia = await company
        .put(`/api/campaigns/${created.id}`, { mediaUrl: png, caption: 'Veja {PrimeiroNome}' })
        .expect(200);
      expect(withMedia.body).toMatchObject({ type: 'MEDIA', mediaType: 'image' });
      const broken = await company.put(`/api/campaigns/${created.id}`, {
        mediaUrl: 'data:image/png;base64,@@@',
      });
      expect(expectErrorBody(broken, 400)).toMatch(/mediaUrl=.*base64 válido/);
      const plain = await company
        .put(`/api/campaigns/${created.id}`, { mediaUrl: null })
        .expect(200);
      expect(plain.body).toMatchObject({ type: 'TEXT', mediaType: null, mediaUrl: null });
      const { rows } = await db().query(`SELECT caption FROM campaigns WHERE id = $1`, [
        created.id,
      ]);
      expect(rows[0].caption).toBeNull();
    });

    it('warns, as creation does, of a message that may render blank', async () => {
      const created = await draft();
      const edited = await company
        .put(`/api/campaigns/${created.id}`, { message: '{PrimeiroNome}' })
        .expect(200);
      expect(edited.body.warnings).toEqual([expect.stringMatching(/^message só tem variáveis/)]);
    });

    it('edits a SCHEDULED campaign with the full checks: its message is required and its instance checked', async () => {
      const gw = connectedInstance(fake);
      const created = (
        await company
          .post('/api/campaigns', campaignBody(fake, gw, { scheduledFor: localIn(60) }))
          .expect(200)
      ).body;
      expect(
        expectErrorBody(await company.put(`/api/campaigns/${created.id}`, { message: null }), 400),
      ).toMatch(/message=é obrigatória/);
      const down = connectedInstance(fake);
      fake.setState(down.instance, 'close');
      const config = (
        await company
          .post('/api/gateway-configs', {
            name: 'Fechada',
            url: fake.url,
            apiKey: down.apiKey,
            instance: down.instance,
          })
          .expect(201)
      ).body;
      expect(
        expectErrorBody(
          await company.put(`/api/campaigns/${created.id}`, { gatewayConfigId: config.id }),
          400,
        ),
      ).toMatch(/não está conectada/);
      const after = (await company.get(`/api/campaigns/${created.id}`).expect(200)).body;
      expect(after).toMatchObject({
        status: 'SCHEDULED',
        messageContent: created.messageContent,
        gatewayConfig: created.gatewayConfig,
      });
      await company.put(`/api/campaigns/${created.id}/cancel`).expect(200);
    });

    it('refuses with 409 a campaign that is ACTIVE, PAUSED, COMPLETED or CANCELLED, changing nothing', async () => {
      const gw = connectedInstance(fake);
      const create = async (overrides: Record<string, unknown>): Promise<number> =>
        (await company.post('/api/campaigns', campaignBody(fake, gw, overrides)).expect(200)).body
          .id;
      const slow = { intervalMinSeconds: 3600, intervalMaxSeconds: 3600 };
      const ids: Record<string, number> = {
        ACTIVE: await create(slow),
        PAUSED: await create(slow),
        COMPLETED: await create({}),
        CANCELLED: await create({ isDraft: true }),
      };
      await company.put(`/api/campaigns/${ids.PAUSED}/pause`).expect(200);
      await company.put(`/api/campaigns/${ids.CANCELLED}/cancel`).expect(200);
      await waitForCampaign(company, ids.COMPLETED, (c) => c.status === 'COMPLETED');
      for (const [status, id] of Object.entries(ids)) {
        const before = (await company.get(`/api/campaigns/${id}`).expect(200)).body;
        const contactsBefore = await contactsOf(company, id);
        const response = await company.put(`/api/campaigns/${id}`, {
          name: 'Mudado',
          message: 'Outra',
          contacts: [{ phoneNumber: '11987659999' }],
        });
        expect(expectErrorBody(response, 409, `/api/campaigns/${id}`)).toMatch(
          new RegExp(`^Não é possível editar uma campanha com status ${status}`),
        );
        const after = (await company.get(`/api/campaigns/${id}`).expect(200)).body;
        expect(after).toMatchObject({
          status,
          name: before.name,
          messageContent: before.messageContent,
          totalContacts: before.totalContacts,
        });
        expect(await contactsOf(company, id)).toEqual(contactsBefore);
      }
      await company.put(`/api/campaigns/${ids.ACTIVE}/cancel`).expect(200);
      await company.put(`/api/campaigns/${ids.PAUSED}/cancel`).expect(200);
    });

    it.each<[string, Record<string, unknown>, RegExp]>([
      ['a name that is no text', { name: 5 }, /name=/],
      ['a null name', { name: null }, /name=/],
      ['isTest that is no boolean', { isTest: 'sim' }, /isTest=/],
      ['isTest null', { isTest: null }, /isTest=não pode ser nulo/],
      ['a message that is no text', { message: 42 }, /message=/],
      ['an interval that is no number', { intervalMinSeconds: 'cinco' }, /intervalMinSeconds=/],
      [
        'intervals out of order',
        { intervalMinSeconds: 30, intervalMaxSeconds: 10 },
        /intervalMinSeconds=/,
      ],
      ['contacts that are no list', { contacts: 'todos' }, /contacts=/],
      ['empty contacts', { contacts: [] }, /contacts=informe ao menos 1 contato/],
      [
        'contacts none of them valid',
        { contacts: [{ phoneNumber: 'abc' }] },
        /contacts=nenhum contato válido/,
      ],
      ['pollData that is no object', { pollData: 'sim' }, /pollData=/],
      ['gatewayConfigIds of text', { gatewayConfigIds: ['a'] }, /gatewayConfigIds=/],
      [
        'an unknown gatewayConfigId',
        { gatewayConfigId: 2_000_000_000 },
        /gatewayConfigId=configuração de gateway não encontrada/,
      ],
      ['an unknown pool number', { gatewayConfigIds: [2_000_000_000] }, /gatewayConfigIds\[0\]=/],
      ['scheduledFor that is no date', { scheduledFor: 'amanhã' }, /scheduledFor=/],
      [
        'scheduledFor in the past',
        { scheduledFor: '2020-01-01T10:00:00' },
        /scheduledFor=deve ser ao menos 5 minutos/,
      ],
      ['scheduledFor with a zone', { scheduledFor: '2030-01-01T10:00:00Z' }, /scheduledFor=/],
      ['scheduledFor as a number', { scheduledFor: 1 }, /scheduledFor=/],
      ['a caption without media', { caption: 'Legenda' }, /mediaUrl=/],
      ['isDraft false (launching is its own route)', { isDraft: false }, /isDraft=.*launch/],
      ['an unknown field', { shceduledFor: localIn(30) }, /shceduledFor=/],
      [
        'a sending window with an unknown key',
        { sendingWindow: { days: [1], start: '09:00', end: '10:00', timezone: 'UTC', x: 1 } },
        /sendingWindow/,
      ],
      ['long pause without its seconds', { longPauseEvery: 10 }, /longPauseSeconds=/],
    ])('refuses %s with 400, changing nothing', async (_case, body, message) => {
      const created = await draft({ description: 'Intacta', scheduledFor: localIn(90) });
      const before = (await company.get(`/api/campaigns/${created.id}`).expect(200)).body;
      const contactsBefore = await contactsOf(company, created.id);
      const response = await company.put(`/api/campaigns/${created.id}`, body);
      expect(expectErrorBody(response, 400, `/api/campaigns/${created.id}`)).toMatch(message);
      expect((await company.get(`/api/campaigns/${created.id}`).expect(200)).body).toEqual(before);
      expect(await contactsOf(company, created.id)).toEqual(contactsBefore);
    });

    it('refuses to take the time away from a SCHEDULED campaign', async () => {
      const gw = connectedInstance(fake);
      const scheduledFor = localIn(60);
      const created = (
        await company.post('/api/campaigns', campaignBody(fake, gw, { scheduledFor })).expect(200)
      ).body;
      const response = await company.put(`/api/campaigns/${created.id}`, { scheduledFor: null });
      expect(expectErrorBody(response, 400)).toMatch(/scheduledFor=/);
      expect((await company.get(`/api/campaigns/${created.id}`).expect(200)).body).toMatchObject({
        status: 'SCHEDULED',
        scheduledFor,
      });
      await company.put(`/api/campaigns/${created.id}/cancel`).expect(200);
    });
  });

  describe('rescheduling', () => {
    /** The service's clock an hour behind: times a few seconds ahead pass creation's 5-minute lead. */
    function clockAnHourBehind(): () => void {
      const clock = t.app.get(Clock);
      const spy = jest
        .spyOn(clock, 'now')
        .mockImplementation(() => new Date(Date.now() - 3_600_000));
      return () => spy.mockRestore();
    }

    /** A local time `seconds` from now, to the second. */
    function localInSeconds(seconds: number): string {
      return new Date(Date.now() + seconds * 1000 - 3 * 3600_000).toISOString().slice(0, 19);
    }

    it('fires a scheduled campaign moved earlier at its new time, not the old one', async () => {
      const gw = connectedInstance(fake);
      const created = (
        await company
          .post('/api/campaigns', campaignBody(fake, gw, { scheduledFor: localIn(120) }))
          .expect(200)
      ).body;
      const restore = clockAnHourBehind();
      let newTime: string;
      try {
        newTime = localInSeconds(3);
        const moved = await company
          .put(`/api/campaigns/${created.id}`, { scheduledFor: newTime })
          .expect(200);
        expect(moved.body).toMatchObject({ status: 'SCHEDULED', scheduledFor: newTime });
      } finally {
        restore();
      }
      const done = await waitForCampaign(company, created.id, (c) => c.status === 'COMPLETED');
      expect(done.startedAt >= newTime).toBe(true);
      expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(3);
      expect((await eventsOf(created.id)).filter((e) => e === 'campaign.started')).toHaveLength(1);
    });

    it('does not fire a scheduled campaign moved later at its old time, and fires it at the new one', async () => {
      const gw = connectedInstance(fake);
      const restore = clockAnHourBehind();
      let created: Record<string, any>;
      const later = localIn(120);
      try {
        created = (
          await company
            .post('/api/campaigns', campaignBody(fake, gw, { scheduledFor: localInSeconds(2) }))
            .expect(200)
        ).body;
        await company.put(`/api/campaigns/${created.id}`, { scheduledFor: later }).expect(200);
      } finally {
        restore();
      }
      // Past the old time, and past the engine's once-a-second look at scheduled starts.
      await sleep(4_000);
      const waiting = (await company.get(`/api/campaigns/${created.id}`).expect(200)).body;
      expect(waiting).toMatchObject({ status: 'SCHEDULED', scheduledFor: later });
      expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(0);
      // The new time comes: as the clock would, move it into the past.
      await db().query(
        `UPDATE campaigns SET scheduled_for = now() - interval '1 second' WHERE id = $1`,
        [created.id],
      );
      await waitForCampaign(company, created.id, (c) => c.status === 'COMPLETED');
      expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(3);
    });
  });

  describe('POST /api/campaigns/{id}/launch', () => {
    it('schedules a draft that has a time, with no started event until it comes, then starts it', async () => {
      const scheduledFor = localIn(60);
      const created = await draft({ scheduledFor });
      const launched = await company.post(`/api/campaigns/${created.id}/launch`).expect(200);
      expect(launched.body).toMatchObject({ status: 'SCHEDULED', scheduledFor, startedAt: null });
      expect(await eventsOf(created.id)).toEqual([]);
      await db().query(
        `UPDATE campaigns SET scheduled_for = now() - interval '1 second' WHERE id = $1`,
        [created.id],
      );
      const done = await waitForCampaign(company, created.id, (c) => c.status === 'COMPLETED');
      expect(done.sentContacts).toBe(3);
      expect((await eventsOf(created.id)).filter((e) => e === 'campaign.started')).toHaveLength(1);
    });

    it('refuses with 400 a draft whose gateway key is wrong, leaving the draft as it was', async () => {
      const gw = connectedInstance(fake);
      const created = (
        await company
          .post(
            '/api/campaigns',
            campaignBody(
              fake,
              { instance: gw.instance, apiKey: 'chave-errada' },
              { isDraft: true },
            ),
          )
          .expect(200)
      ).body;
      const response = await company.post(`/api/campaigns/${created.id}/launch`);
      expect(expectErrorBody(response, 400, `/api/campaigns/${created.id}/launch`)).toMatch(
        /Credenciais do gateway inválidas: a chave de API foi recusada/,
      );
      const after = (await company.get(`/api/campaigns/${created.id}`).expect(200)).body;
      expect(after).toEqual(created);
      expect(await eventsOf(created.id)).toEqual([]);
      const { rows } = await db().query(`SELECT launched_at FROM campaigns WHERE id = $1`, [
        created.id,
      ]);
      expect(rows[0].launched_at).toBeNull();
      await sleep(300);
      expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(0);
    });

    it('refuses with 400 a draft without a message or whose time is too close, then launches it once corrected', async () => {
      const created = await draft({ message: undefined });
      expect(
        expectErrorBody(await company.post(`/api/campaigns/${created.id}/launch`), 400),
      ).toMatch(/message=é obrigatória/);
      await company.put(`/api/campaigns/${created.id}`, { message: 'Agora sim' }).expect(200);
      await db().query(
        `UPDATE campaigns SET scheduled_for = now() + interval '1 minute' WHERE id = $1`,
        [created.id],
      );
      expect(
        expectErrorBody(await company.post(`/api/campaigns/${created.id}/launch`), 400),
      ).toMatch(/scheduledFor=deve ser ao menos 5 minutos no futuro/);
      expect((await company.get(`/api/campaigns/${created.id}`).expect(200)).body.status).toBe(
        'DRAFT',
      );
      await company.put(`/api/campaigns/${created.id}`, { scheduledFor: null }).expect(200);
      await company.post(`/api/campaigns/${created.id}/launch`).expect(200);
      const done = await waitForCampaign(company, created.id, (c) => c.status === 'COMPLETED');
      expect(done.sentContacts).toBe(3);
    });

    it('refuses a poll draft once the company’s polls are disabled', async () => {
      const owner = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const created = (
        await owner
          .post(
            '/api/campaigns',
            campaignBody(fake, gw, {
              isDraft: true,
              message: undefined,
              pollData: { name: 'Qual?', options: ['A', 'B'], selectableCount: 1 },
            }),
          )
          .expect(200)
      ).body;
      await t.http
        .patch(`/api/admin/companies/${owner.id}`)
        .set(ADMIN_HEADER)
        .send({ pollCampaignsEnabled: false })
        .expect(200);
      expect(expectErrorBody(await owner.post(`/api/campaigns/${created.id}/launch`), 400)).toMatch(
        /enquete estão desativadas/,
      );
      expect((await owner.get(`/api/campaigns/${created.id}`).expect(200)).body.status).toBe(
        'DRAFT',
      );
    });

    it('refuses with 409 a campaign that is not a DRAFT, changing nothing', async () => {
      const gw = connectedInstance(fake);
      const create = async (overrides: Record<string, unknown>): Promise<number> =>
        (await company.post('/api/campaigns', campaignBody(fake, gw, overrides)).expect(200)).body
          .id;
      const ids: Record<string, number> = {
        SCHEDULED: await create({ scheduledFor: localIn(60) }),
        ACTIVE: await create({ intervalMinSeconds: 3600, intervalMaxSeconds: 3600 }),
        CANCELLED: await create({ isDraft: true }),
      };
      await company.put(`/api/campaigns/${ids.CANCELLED}/cancel`).expect(200);
      for (const [status, id] of Object.entries(ids)) {
        const response = await company.post(`/api/campaigns/${id}/launch`);
        expect(expectErrorBody(response, 409, `/api/campaigns/${id}/launch`)).toMatch(
          new RegExp(`^Não é possível lançar uma campanha com status ${status}`),
        );
        expect((await company.get(`/api/campaigns/${id}`).expect(200)).body.status).toBe(status);
      }
      const launchedTwice = await draft();
      await company.post(`/api/campaigns/${launchedTwice.id}/launch`).expect(200);
      expectErrorBody(await company.post(`/api/campaigns/${launchedTwice.id}/launch`), 409);
      await waitForCampaign(company, launchedTwice.id, (c) => c.status === 'COMPLETED');
      expect(fake.sentTo('5511987650001').length).toBeGreaterThan(0);
      for (const id of [ids.SCHEDULED, ids.ACTIVE]) {
        await company.put(`/api/campaigns/${id}/cancel`).expect(200);
      }
    });

    it('leaves out the numbers blocked since the draft was saved', async () => {
      const owner = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const created = (
        await owner
          .post(
            '/api/campaigns',
            campaignBody(fake, gw, { isDraft: true, contacts: phones(3, 7100) }),
          )
          .expect(200)
      ).body;
      const [kept1, blocked, kept2] = phones(3, 7100).map((p) => p.phoneNumber);
      await owner
        .post(`/api/companies/${owner.id}/blocked-contacts`, { phoneNumber: blocked })
        .expect(201);
      const launched = await owner.post(`/api/campaigns/${created.id}/launch`).expect(200);
      expect(launched.body).toMatchObject({ totalContacts: 2, blockedContactsRemoved: 1 });
      await waitForCampaign(owner, created.id, (c) => c.status === 'COMPLETED');
      expect(fake.sentTo(kept1)).toHaveLength(1);
      expect(fake.sentTo(kept2)).toHaveLength(1);
      expect(fake.sentTo(blocked)).toHaveLength(0);
    });
  });

  describe('pools', () => {
    it('edits a pool draft to other numbers and launches it: each contact sent once, through its numbers only', async () => {
      const [a, b, c] = [
        await connectedConfig(company, fake),
        await connectedConfig(company, fake),
        await connectedConfig(company, fake),
      ];
      const created = (
        await company
          .post('/api/campaigns', {
            name: 'Pool rascunho',
            message: 'Olá {PrimeiroNome}',
            isDraft: true,
            gatewayConfigIds: [a.id, b.id],
            intervalMinSeconds: 0,
            intervalMaxSeconds: 0,
            contacts: phones(10, 7200),
          })
          .expect(200)
      ).body;
      const contacts = phones(12, 7300);
      const edited = await company
        .put(`/api/campaigns/${created.id}`, { gatewayConfigIds: [b.id, c.id], contacts })
        .expect(200);
      expect(
        edited.body.senders.map((s: { gatewayConfigId: number }) => s.gatewayConfigId),
      ).toEqual([b.id, c.id]);
      expect(edited.body).toMatchObject({ status: 'DRAFT', totalContacts: 12 });
      const shape = await storedShape(created.id);
      expect(shape.poolId).toBe(created.id);
      expect(shape.senders.map((s) => s.config)).toEqual([b.id, c.id]);
      expect(shape.senders.map((s) => s.total)).toEqual([6, 6]);
      const senderIds = new Set(shape.senders.map((s) => s.id));
      expect(Object.keys(shape.holders).sort()).toEqual(contacts.map((p) => p.phoneNumber).sort());
      expect(Object.values(shape.holders).every((id) => senderIds.has(id))).toBe(true);

      const launched = await company.post(`/api/campaigns/${created.id}/launch`).expect(200);
      expect(launched.body.status).toBe('ACTIVE');
      const done = await waitForCampaign(company, created.id, (x) => x.status === 'COMPLETED');
      expect(done).toMatchObject({ sentContacts: 12, failedContacts: 0 });
      for (const p of contacts) {
        expect(fake.sentTo(p.phoneNumber)).toHaveLength(1);
      }
      expect(fake.sent.filter((s) => s.instance === a.gw.instance)).toHaveLength(0);
      expect(fake.sent.filter((s) => s.instance === b.gw.instance)).toHaveLength(6);
      expect(fake.sent.filter((s) => s.instance === c.gw.instance)).toHaveLength(6);
      for (const p of phones(10, 7200)) {
        expect(fake.sentTo(p.phoneNumber)).toHaveLength(0);
      }
    });

    it('turns a single-number draft into a pool and back, its senders and contacts following', async () => {
      const [a, b] = [await connectedConfig(company, fake), await connectedConfig(company, fake)];
      const created = (
        await company
          .post('/api/campaigns', {
            name: 'Um número',
            message: 'Oi {PrimeiroNome}',
            isDraft: true,
            gatewayConfigId: a.id,
            intervalMinSeconds: 0,
            intervalMaxSeconds: 0,
            contacts: phones(6, 7400),
          })
          .expect(200)
      ).body;
      const pooled = await company
        .put(`/api/campaigns/${created.id}`, { gatewayConfigIds: [a.id, b.id], message: 'Pool' })
        .expect(200);
      expect(pooled.body.totalContacts).toBe(6);
      let shape = await storedShape(created.id);
      expect(shape.poolId).toBe(created.id);
      expect(shape.senders.map((s) => [s.config, s.status, s.total])).toEqual([
        [a.id, 'DRAFT', 3],
        [b.id, 'DRAFT', 3],
      ]);
      const senderIds = new Set(shape.senders.map((s) => s.id));
      expect(Object.values(shape.holders).every((id) => senderIds.has(id))).toBe(true);
      const { rows } = await db().query(
        `SELECT DISTINCT message_content FROM campaigns WHERE pool_id = $1`,
        [created.id],
      );
      expect(rows).toEqual([{ message_content: 'Pool' }]);

      const single = await company
        .put(`/api/campaigns/${created.id}`, { gatewayConfigIds: null })
        .expect(200);
      expect(single.body).toMatchObject({ totalContacts: 6, gatewayConfig: { id: a.id } });
      expect(
        single.body.senders.map((s: { gatewayConfigId: number }) => s.gatewayConfigId),
      ).toEqual([a.id]);
      shape = await storedShape(created.id);
      expect(shape.poolId).toBeNull();
      expect(shape.senders).toEqual([]);
      expect(Object.keys(shape.holders)).toHaveLength(6);
      expect(Object.values(shape.holders).every((id) => id === created.id)).toBe(true);

      await company.post(`/api/campaigns/${created.id}/launch`).expect(200);
      await waitForCampaign(company, created.id, (x) => x.status === 'COMPLETED');
      expect(fake.sent.filter((s) => s.instance === a.gw.instance)).toHaveLength(6);
      expect(fake.sent.filter((s) => s.instance === b.gw.instance)).toHaveLength(0);
    });

    it('launches a scheduled pool draft: its numbers wait with it and all start at its time', async () => {
      const [a, b] = [await connectedConfig(company, fake), await connectedConfig(company, fake)];
      const contacts = phones(6, 7600);
      const created = (
        await company
          .post('/api/campaigns', {
            name: 'Pool agendado em rascunho',
            message: 'Oi',
            isDraft: true,
            scheduledFor: localIn(60),
            gatewayConfigIds: [a.id, b.id],
            intervalMinSeconds: 0,
            intervalMaxSeconds: 0,
            contacts,
          })
          .expect(200)
      ).body;
      const launched = await company.post(`/api/campaigns/${created.id}/launch`).expect(200);
      expect(launched.body.status).toBe('SCHEDULED');
      expect((await storedShape(created.id)).senders.map((s) => s.status)).toEqual([
        'SCHEDULED',
        'SCHEDULED',
      ]);
      await db().query(
        `UPDATE campaigns SET scheduled_for = now() - interval '1 second' WHERE pool_id = $1`,
        [created.id],
      );
      const done = await waitForCampaign(company, created.id, (x) => x.status === 'COMPLETED');
      expect(done).toMatchObject({ sentContacts: 6, failedContacts: 0 });
      for (const p of contacts) {
        expect(fake.sentTo(p.phoneNumber)).toHaveLength(1);
      }
      expect(fake.sent.filter((m) => m.instance === a.gw.instance)).toHaveLength(3);
      expect(fake.sent.filter((m) => m.instance === b.gw.instance)).toHaveLength(3);
    });

    /** A pool on two new numbers, scheduled an hour ahead, with four contacts from `first`. */
    const scheduledPool = async (name: string, first: number): Promise<{ id: number }> => {
      const [a, b] = [await connectedConfig(company, fake), await connectedConfig(company, fake)];
      const body = {
        name,
        message: 'Oi',
        scheduledFor: localIn(60),
        gatewayConfigIds: [a.id, b.id],
        contacts: phones(4, first),
      };
      return (await company.post('/api/campaigns', body).expect(200)).body;
    };

    it('reschedules a scheduled pool on all its numbers', async () => {
      const created = await scheduledPool('Pool agendado', 7500);
      const later = localIn(180);
      await company.put(`/api/campaigns/${created.id}`, { scheduledFor: later }).expect(200);
      const { rows } = await db().query(
        `SELECT DISTINCT scheduled_for FROM campaigns WHERE pool_id = $1`,
        [created.id],
      );
      expect(rows).toHaveLength(1);
      expect(
        (await company.get(`/api/campaigns/${created.id}`).expect(200)).body.scheduledFor,
      ).toBe(later);
      await company.put(`/api/campaigns/${created.id}/cancel`).expect(200);
    });

    it('refuses with 409 an edit of a scheduled pool one of whose numbers has started meanwhile, changing nothing', async () => {
      const created = await scheduledPool('Pool que começou', 7600);
      // What the engine does when a sender's time comes while a person's edit holds the pool.
      await db().query(
        `UPDATE campaigns SET status = 'ACTIVE'
          WHERE id = (SELECT min(id) FROM campaigns WHERE pool_id = $1 AND id <> $1)`,
        [created.id],
      );
      const contactsOf = async (): Promise<string[]> =>
        (
          await db().query(
            `SELECT c.phone_number FROM campaign_contacts c JOIN campaigns k ON k.id = c.campaign_id
              WHERE k.pool_id = $1 ORDER BY c.phone_number`,
            [created.id],
          )
        ).rows.map((row: { phone_number: string }) => row.phone_number);
      const before = await contactsOf();
      await company
        .put(`/api/campaigns/${created.id}`, { message: 'Outra', contacts: phones(2, 7700) })
        .expect(409);
      expect(await contactsOf()).toEqual(before);
      expect(
        (await company.get(`/api/campaigns/${created.id}`).expect(200)).body.messageContent,
      ).toBe('Oi');
      await db().query(`UPDATE campaigns SET status = 'SCHEDULED' WHERE pool_id = $1`, [
        created.id,
      ]);
      await company.put(`/api/campaigns/${created.id}/cancel`).expect(200);
    });
  });

  describe('the hourly creation limit', () => {
    /** A new company allowed `launches` campaigns an hour (an administrator's setting). */
    const companyLaunchingPerHour = async (launches: number): Promise<TestCompany> => {
      const owner = await TestCompany.register(t.http);
      await t.http
        .patch(`/api/admin/companies/${owner.id}`)
        .set(ADMIN_HEADER)
        .send({ campaignCreationsPerHour: launches })
        .expect(200);
      return owner;
    };

    it('counts a draft when it is launched, not when it is saved or edited', async () => {
      const owner = await companyLaunchingPerHour(2);
      const gw = connectedInstance(fake);
      const drafts = [];
      for (let i = 0; i < 3; i += 1) {
        drafts.push(
          (
            await owner
              .post(
                '/api/campaigns',
                campaignBody(fake, gw, { isDraft: true, scheduledFor: localIn(60) }),
              )
              .expect(200)
          ).body.id,
        );
      }
      await owner.put(`/api/campaigns/${drafts[0]}`, { name: 'Editado' }).expect(200);
      await owner.post(`/api/campaigns/${drafts[0]}/launch`).expect(200);
      await owner.post(`/api/campaigns/${drafts[1]}/launch`).expect(200);
      const refused = await owner.post(`/api/campaigns/${drafts[2]}/launch`);
      expectErrorBody(refused, 429);
      expect(refused.headers['retry-after']).toEqual(expect.any(String));
      expect((await owner.get(`/api/campaigns/${drafts[2]}`).expect(200)).body.status).toBe(
        'DRAFT',
      );
      // A fourth draft may still be saved.
      await owner.post('/api/campaigns', campaignBody(fake, gw, { isDraft: true })).expect(200);
      for (const id of drafts.slice(0, 2)) {
        await owner.put(`/api/campaigns/${id}/cancel`).expect(200);
      }
    });

    it('counts a scheduled test campaign made real as launched when it is made real', async () => {
      const owner = await companyLaunchingPerHour(1);
      const gw = connectedInstance(fake);
      const scheduled = campaignBody(fake, gw, { isTest: true, scheduledFor: localIn(60) });
      const tests = [];
      for (let i = 0; i < 2; i += 1) {
        tests.push((await owner.post('/api/campaigns', scheduled).expect(200)).body.id);
      }
      // Created long ago, as far as the hour's count goes.
      await db().query(
        `UPDATE campaigns SET created_at = now() - interval '2 hours',
                              launched_at = now() - interval '2 hours' WHERE id = ANY($1)`,
        [tests],
      );
      await owner.put(`/api/campaigns/${tests[0]}`, { isTest: false }).expect(200);
      expectErrorBody(await owner.put(`/api/campaigns/${tests[1]}`, { isTest: false }), 429);
      expect((await owner.get(`/api/campaigns/${tests[1]}`).expect(200)).body.isTest).toBe(true);
      for (const id of tests) {
        await owner.put(`/api/campaigns/${id}/cancel`).expect(200);
      }
    });
  });

  describe('tenancy and ids', () => {
    it('answers another company’s campaign with 403 and an unknown one with 404 on both routes', async () => {
      const created = await draft();
      expectErrorBody(await other.put(`/api/campaigns/${created.id}`, { name: 'Invasor' }), 403);
      expectErrorBody(await other.post(`/api/campaigns/${created.id}/launch`), 403);
      expectErrorBody(await company.put('/api/campaigns/999999999', { name: 'Nada' }), 404);
      expectErrorBody(await company.post('/api/campaigns/999999999/launch'), 404);
      for (const bad of ['abc', '0', '-1', '1.5']) {
        expectErrorBody(await company.put(`/api/campaigns/${bad}`, { name: 'Nada' }), 400);
        expectErrorBody(await company.post(`/api/campaigns/${bad}/launch`), 400);
      }
      expect((await company.get(`/api/campaigns/${created.id}`).expect(200)).body).toEqual(created);
    });

    it('refuses another company’s gateway configuration with 403, changing nothing', async () => {
      const created = await draft();
      const foreign = await connectedConfig(other, fake);
      expectErrorBody(
        await company.put(`/api/campaigns/${created.id}`, { gatewayConfigId: foreign.id }),
        403,
      );
      expect((await company.get(`/api/campaigns/${created.id}`).expect(200)).body).toEqual(created);
    });
  });
});
