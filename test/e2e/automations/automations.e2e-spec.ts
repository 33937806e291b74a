import { connectedInstance } from '../../support/campaigns';
import {
  importDatabase,
  otherDay,
  runNowAndWait,
  runsOnceCompleted,
  todayInSaoPaulo,
} from '../../support/automations';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { ADMIN_HEADER, TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

describe('automations', () => {
  const { t, fake } = useE2eFixture({ noRefusals: true });

  async function setUp(rows?: Array<Record<string, string>>): Promise<{
    company: TestCompany;
    databaseId: number;
    gatewayConfigId: number;
    gw: { instance: string; apiKey: string };
  }> {
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
    const database = await importDatabase(
      company,
      rows ?? [
        { telefone: '11987660001', nome: 'Ana Lima', nascimento: todayInSaoPaulo(30) },
        { telefone: '11987660002', nome: 'Bruno Reis', nascimento: todayInSaoPaulo(41) },
        { telefone: '11987660003', nome: 'Carla Dias', nascimento: otherDay() },
      ],
    );
    return { company, databaseId: database.id, gatewayConfigId: config.body.id, gw };
  }

  function birthdayBody(
    databaseId: number,
    gatewayConfigId: number,
    overrides: Record<string, unknown> = {},
  ): Record<string, unknown> {
    return {
      name: 'Aniversariantes do dia',
      scheduleType: 'DAILY',
      schedule: { timeOfDay: '09:00', timezone: 'America/Sao_Paulo' },
      databaseConfigId: databaseId,
      gatewayConfigId,
      filters: [{ filterId: 'nascimento', value: 'TODAY', operator: 'equals', ignoreYear: true }],
      messageConfig: { type: 'TEXT', message: 'Feliz aniversário, {PrimeiroNome}!' },
      intervalMinSeconds: 0,
      intervalMaxSeconds: 0,
      ...overrides,
    };
  }

  const runAndWait = (company: TestCompany, id: number): Promise<Record<string, any>> =>
    runNowAndWait(company, id, 20_000);

  it('creates with the defaults of docs/API-RULES.md §5 and computes nextRunAt in the schedule’s zone', async () => {
    const { company, databaseId, gatewayConfigId } = await setUp();
    const body = birthdayBody(databaseId, gatewayConfigId);
    delete body.intervalMinSeconds;
    delete body.intervalMaxSeconds;
    const response = await company.post('/api/automations', body).expect(201);
    expect(response.body).toMatchObject({
      id: expect.any(Number),
      name: 'Aniversariantes do dia',
      isActive: true,
      scheduleType: 'DAILY',
      schedule: { timeOfDay: '09:00', timezone: 'America/Sao_Paulo' },
      databaseConfigId: databaseId,
      gatewayConfigId,
      intervalMinSeconds: 5,
      intervalMaxSeconds: 12,
      dedupStrategy: 'ONCE',
      dedupCooldownDays: null,
      sendLimitPerRun: null,
      lastRunAt: null,
      notificationPhone: null,
      filters: [{ filterId: 'nascimento', value: 'TODAY', operator: 'equals', ignoreYear: true }],
      messageConfig: { type: 'TEXT', message: 'Feliz aniversário, {PrimeiroNome}!' },
    });
    expect(response.body.nextRunAt).toMatch(/T09:00:00$/);
    expect(response.body.createdAt).toMatch(LOCAL_DATE_TIME);
    const fetched = await company.get(`/api/automations/${response.body.id}`).expect(200);
    expect(fetched.body).toEqual(response.body);
  });

  it('sends the birthday message to today’s birthdays only, with the record’s variables', async () => {
    const { company, databaseId, gatewayConfigId, gw } = await setUp();
    const automation = (
      await company.post('/api/automations', birthdayBody(databaseId, gatewayConfigId)).expect(201)
    ).body;
    const run = await runAndWait(company, automation.id);
    expect(run).toMatchObject({
      status: 'COMPLETED',
      trigger: 'MANUAL',
      matchedRecords: 2,
      sent: 2,
      failed: 0,
    });
    const texts = fake.sent
      .filter((s) => s.instance === gw.instance)
      .map((s) => [s.number, s.body.text]);
    expect(texts.sort()).toEqual([
      ['5511987660001', 'Feliz aniversário, Ana!'],
      ['5511987660002', 'Feliz aniversário, Bruno!'],
    ]);
    const after = (await company.get(`/api/automations/${automation.id}`)).body;
    expect(after.lastRunAt).toMatch(LOCAL_DATE_TIME);
    // The run's internal campaign stays out of the campaign API.
    expect((await company.get('/api/campaigns').expect(200)).body).toEqual([]);
  });

  it('draws variants in a run and records each contact’s text as it was sent', async () => {
    const { company, databaseId, gatewayConfigId, gw } = await setUp();
    const automation = (
      await company
        .post(
          '/api/automations',
          birthdayBody(databaseId, gatewayConfigId, {
            messageConfig: {
              type: 'TEXT',
              message: '{Parabéns|Feliz aniversário}, {PrimeiroNome}!',
            },
          }),
        )
        .expect(201)
    ).body;
    const run = await runAndWait(company, automation.id);
    expect(run).toMatchObject({ status: 'COMPLETED', sent: 2 });
    const received = fake.sent.filter((s) => s.instance === gw.instance);
    expect(received).toHaveLength(2);
    const { rows } = await db().query(
      `SELECT cc.phone_number, cc.sent_text FROM campaign_contacts cc
         JOIN campaigns c ON c.id = cc.campaign_id WHERE c.automation_run_id = $1`,
      [run.id],
    );
    expect(rows.map((r) => [r.phone_number, r.sent_text]).sort()).toEqual(
      received.map((s) => [s.number, s.body.text]).sort(),
    );
    for (const [name, s] of [
      ['Ana', received.find((x) => x.number === '5511987660001')],
      ['Bruno', received.find((x) => x.number === '5511987660002')],
    ] as const) {
      expect([`Parabéns, ${name}!`, `Feliz aniversário, ${name}!`]).toContain(s?.body.text);
    }
  });

  it.each([
    ['ONCE', {}, 0],
    ['NEVER', { dedupStrategy: 'NEVER' }, 2],
    ['COOLDOWN_DAYS', { dedupStrategy: 'COOLDOWN_DAYS', dedupCooldownDays: 365 }, 0],
  ])('applies de-duplication %s across two runs', async (_label, overrides, secondRunSends) => {
    const { company, databaseId, gatewayConfigId, gw } = await setUp();
    const automation = (
      await company
        .post('/api/automations', birthdayBody(databaseId, gatewayConfigId, overrides))
        .expect(201)
    ).body;
    const first = await runAndWait(company, automation.id);
    expect(first.sent).toBe(2);
    const second = await runAndWait(company, automation.id);
    expect(second).toMatchObject({
      sent: secondRunSends,
      skippedByDedup: 2 - secondRunSends,
      matchedRecords: 2,
    });
    expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(2 + secondRunSends);
  });

  it('sends again after the cooldown has passed', async () => {
    const { company, databaseId, gatewayConfigId } = await setUp();
    const automation = (
      await company
        .post(
          '/api/automations',
          birthdayBody(databaseId, gatewayConfigId, {
            dedupStrategy: 'COOLDOWN_DAYS',
            dedupCooldownDays: 3,
          }),
        )
        .expect(201)
    ).body;
    await runAndWait(company, automation.id);
    await db().query(
      `UPDATE automation_sent_log SET sent_at = sent_at - interval '4 days' WHERE automation_id = $1`,
      [automation.id],
    );
    const second = await runAndWait(company, automation.id);
    expect(second).toMatchObject({ sent: 2, skippedByDedup: 0 });
  });

  it('stops at sendLimitPerRun and leaves the rest for the next run', async () => {
    const rows = Array.from({ length: 5 }, (_v, i) => ({
      telefone: `1198767${String(1000 + i)}`,
      nome: `Pessoa ${i}`,
      nascimento: todayInSaoPaulo(20 + i),
    }));
    const { company, databaseId, gatewayConfigId } = await setUp(rows);
    const automation = (
      await company
        .post('/api/automations', birthdayBody(databaseId, gatewayConfigId, { sendLimitPerRun: 3 }))
        .expect(201)
    ).body;
    expect(await runAndWait(company, automation.id)).toMatchObject({
      matchedRecords: 5,
      sent: 3,
      skippedByLimit: 2,
    });
    expect(await runAndWait(company, automation.id)).toMatchObject({
      sent: 2,
      skippedByDedup: 3,
      skippedByLimit: 0,
    });
  });

  it('leaves out block-listed numbers', async () => {
    const { company, databaseId, gatewayConfigId, gw } = await setUp();
    await company
      .post(`/api/companies/${company.id}/blocked-contacts`, { phoneNumber: '11987660002' })
      .expect(201);
    const automation = (
      await company.post('/api/automations', birthdayBody(databaseId, gatewayConfigId)).expect(201)
    ).body;
    expect(await runAndWait(company, automation.id)).toMatchObject({
      sent: 1,
      skippedByBlockList: 1,
    });
    expect(fake.sent.filter((s) => s.instance === gw.instance).map((s) => s.number)).toEqual([
      '5511987660001',
    ]);
  });

  it('test-send renders with the first matching record and creates no run and no sent-log', async () => {
    const { company, databaseId, gatewayConfigId, gw } = await setUp();
    const automation = (
      await company.post('/api/automations', birthdayBody(databaseId, gatewayConfigId)).expect(201)
    ).body;
    const response = await company
      .post(`/api/automations/${automation.id}/test-send`, { phoneNumber: '(11) 99999-4444' })
      .expect(200);
    expect(response.body).toEqual({
      success: true,
      phoneNumber: '5511999994444',
      renderedMessage: 'Feliz aniversário, Ana!',
    });
    expect(fake.sentTo('5511999994444').filter((s) => s.instance === gw.instance)).toHaveLength(1);
    expect((await company.get(`/api/automations/${automation.id}/runs`)).body).toEqual([]);
    expect(await countRows('automation_sent_log', 'automation_id = $1', [automation.id])).toBe(0);
    expectErrorBody(
      await company.post(`/api/automations/${automation.id}/test-send`, { phoneNumber: '12' }),
      400,
    );
  });

  it('refuses an update whose message breaks the variants rules, and leaves stored texts alone otherwise', async () => {
    const { company, databaseId, gatewayConfigId } = await setUp();
    const automation = (
      await company.post('/api/automations', birthdayBody(databaseId, gatewayConfigId)).expect(201)
    ).body;
    const path = `/api/automations/${automation.id}`;
    const refused = expectErrorBody(
      await company.put(path, {
        messageConfig: { type: 'TEXT', message: '{Oi|Olá {PrimeiroNome}' },
      }),
      400,
      path,
    );
    expect(refused).toContain('messageConfig.message=');
    expect((await company.get(path).expect(200)).body).toEqual(automation);

    // A text stored before variants existed, with a lone brace, still lets other fields change.
    await db().query(
      `UPDATE automations SET message_config = jsonb_set(message_config, '{message}', '"Parabéns :-{"')
        WHERE id = $1`,
      [automation.id],
    );
    const renamed = await company.put(path, { name: 'Aniversários' }).expect(200);
    expect(renamed.body).toMatchObject({
      name: 'Aniversários',
      messageConfig: { type: 'TEXT', message: 'Parabéns :-{' },
    });
  });

  it('test-send shows the variants it drew, which are the ones the gateway received', async () => {
    const { company, databaseId, gatewayConfigId, gw } = await setUp();
    const automation = (
      await company
        .post(
          '/api/automations',
          birthdayBody(databaseId, gatewayConfigId, {
            messageConfig: {
              type: 'TEXT',
              message: '{Feliz aniversário|Parabéns|Felicidades}, {PrimeiroNome}!',
            },
          }),
        )
        .expect(201)
    ).body;
    const rendered = new Set<string>();
    for (let i = 0; i < 12; i += 1) {
      const phone = `55119999950${String(i).padStart(2, '0')}`;
      const response = await company
        .post(`/api/automations/${automation.id}/test-send`, { phoneNumber: phone })
        .expect(200);
      expect(['Feliz aniversário, Ana!', 'Parabéns, Ana!', 'Felicidades, Ana!']).toContain(
        response.body.renderedMessage,
      );
      const received = fake.sentTo(phone).filter((s) => s.instance === gw.instance);
      expect(received.map((s) => s.body.text)).toEqual([response.body.renderedMessage]);
      rendered.add(response.body.renderedMessage);
    }
    expect(rendered.size).toBeGreaterThanOrEqual(2);
  });

  it('updates partially, recomputes nextRunAt, and nulls it while inactive', async () => {
    const { company, databaseId, gatewayConfigId } = await setUp();
    const automation = (
      await company.post('/api/automations', birthdayBody(databaseId, gatewayConfigId)).expect(201)
    ).body;
    const weekly = await company
      .put(`/api/automations/${automation.id}`, {
        scheduleType: 'WEEKLY',
        schedule: { timeOfDay: '18:30', timezone: 'America/Sao_Paulo', weekdays: [5] },
      })
      .expect(200);
    expect(weekly.body).toMatchObject({
      scheduleType: 'WEEKLY',
      name: 'Aniversariantes do dia',
      dedupStrategy: 'ONCE',
    });
    expect(weekly.body.nextRunAt).toMatch(/T18:30:00$/);
    const inactive = await company
      .put(`/api/automations/${automation.id}`, { isActive: false })
      .expect(200);
    expect(inactive.body).toMatchObject({ isActive: false, nextRunAt: null });
    const monthly = await company
      .put(`/api/automations/${automation.id}`, {
        isActive: true,
        scheduleType: 'MONTHLY',
        schedule: { timeOfDay: '08:00', timezone: 'America/Sao_Paulo', dayOfMonth: 31 },
      })
      .expect(200);
    expect(monthly.body.nextRunAt).toMatch(/T08:00:00$/);
    const cron = await company
      .put(`/api/automations/${automation.id}`, {
        scheduleType: 'CRON',
        schedule: { timezone: 'Europe/Lisbon', cronExpression: '30 7 * * 1-5' },
      })
      .expect(200);
    expect(cron.body.schedule).toEqual({
      timezone: 'Europe/Lisbon',
      cronExpression: '30 7 * * 1-5',
    });
    expectErrorBody(
      await company.put(`/api/automations/${automation.id}`, { dedupStrategy: 'NEVER' }),
      400,
    );
  });

  it('runs a due automation on schedule, once, and records missed occurrences older than 6 hours as skipped', async () => {
    const { company, databaseId, gatewayConfigId } = await setUp();
    const automation = (
      await company.post('/api/automations', birthdayBody(databaseId, gatewayConfigId)).expect(201)
    ).body;
    await db().query(
      `UPDATE automations SET next_run_at = now() - interval '1 minute' WHERE id = $1`,
      [automation.id],
    );
    let runs = await runsOnceCompleted(company, automation.id, 15_000);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: 'SCHEDULE', status: 'COMPLETED', sent: 2 });
    const after = (await company.get(`/api/automations/${automation.id}`)).body;
    expect(after.nextRunAt).toMatch(/T09:00:00$/);

    await db().query(
      `UPDATE automations SET next_run_at = now() - interval '7 hours' WHERE id = $1`,
      [automation.id],
    );
    runs = await until(
      async () => (await company.get(`/api/automations/${automation.id}/runs`)).body,
      (all) => all.length > 1,
      15_000,
    );
    expect(runs[0]).toMatchObject({ status: 'SKIPPED', trigger: 'SCHEDULE', sent: 0 });
    expect(runs[0].error).toMatch(/6 horas/);
  });

  it('deletes an automation with its runs and sent-log (204)', async () => {
    const { company, databaseId, gatewayConfigId } = await setUp();
    const automation = (
      await company.post('/api/automations', birthdayBody(databaseId, gatewayConfigId)).expect(201)
    ).body;
    await runAndWait(company, automation.id);
    await company.delete(`/api/automations/${automation.id}`).expect(204);
    expectErrorBody(await company.get(`/api/automations/${automation.id}`), 404);
    expect(await countRows('automation_runs', 'automation_id = $1', [automation.id])).toBe(0);
    expect(await countRows('automation_sent_log', 'automation_id = $1', [automation.id])).toBe(0);
  });

  it('deleting an automation cancels the campaign of its run in progress', async () => {
    const { company, databaseId, gatewayConfigId } = await setUp();
    const automation = (
      await company
        .post(
          '/api/automations',
          birthdayBody(databaseId, gatewayConfigId, {
            intervalMinSeconds: 3600,
            intervalMaxSeconds: 3600,
          }),
        )
        .expect(201)
    ).body;
    const run = (await company.post(`/api/automations/${automation.id}/run-now`).expect(202)).body;
    expect(run.status).toBe('RUNNING');
    await company.delete(`/api/automations/${automation.id}`).expect(204);
    const { rows } = await db().query(
      `SELECT status, completed_at, next_send_at FROM campaigns WHERE automation_run_id = $1`,
      [run.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'CANCELLED', next_send_at: null });
    expect(rows[0].completed_at).not.toBeNull();
  });

  it('lists newest first, then by name', async () => {
    const { company, databaseId, gatewayConfigId } = await setUp();
    const names = ['Beta', 'Alfa', 'Gama'];
    for (const name of names) {
      await company
        .post('/api/automations', birthdayBody(databaseId, gatewayConfigId, { name }))
        .expect(201);
    }
    const list = (await company.get('/api/automations').expect(200)).body.map(
      (a: { name: string }) => a.name,
    );
    expect(list).toEqual(['Gama', 'Alfa', 'Beta']);
  });

  it('enforces the automation limit and the automationsEnabled flag', async () => {
    const { company, databaseId, gatewayConfigId } = await setUp();
    await t.http
      .patch(`/api/admin/companies/${company.id}`)
      .set(ADMIN_HEADER)
      .send({ automationLimit: 1 })
      .expect(200);
    await company.post('/api/automations', birthdayBody(databaseId, gatewayConfigId)).expect(201);
    expect(
      expectErrorBody(
        await company.post('/api/automations', birthdayBody(databaseId, gatewayConfigId)),
        400,
      ),
    ).toMatch(/Limite/);
    await t.http
      .patch(`/api/admin/companies/${company.id}`)
      .set(ADMIN_HEADER)
      .send({ automationsEnabled: false })
      .expect(200);
    expectErrorBody(await company.get('/api/automations'), 403);
    expect(await countRows('automations', 'company_id = $1', [company.id])).toBe(1);
  });

  it('keeps companies apart: another company’s automation, database and gateway answer 403', async () => {
    const owner = await setUp();
    const other = await setUp();
    const automation = (
      await owner.company
        .post('/api/automations', birthdayBody(owner.databaseId, owner.gatewayConfigId))
        .expect(201)
    ).body;
    for (const request of [
      other.company.get(`/api/automations/${automation.id}`),
      other.company.put(`/api/automations/${automation.id}`, { name: 'x' }),
      other.company.delete(`/api/automations/${automation.id}`),
      other.company.get(`/api/automations/${automation.id}/runs`),
      other.company.post(`/api/automations/${automation.id}/run-now`),
      other.company.post(`/api/automations/${automation.id}/test-send`, {
        phoneNumber: '11999990000',
      }),
    ]) {
      expectErrorBody(await request, 403);
    }
    expectErrorBody(
      await other.company.post(
        '/api/automations',
        birthdayBody(owner.databaseId, other.gatewayConfigId),
      ),
      403,
    );
    expectErrorBody(
      await other.company.post(
        '/api/automations',
        birthdayBody(other.databaseId, owner.gatewayConfigId),
      ),
      403,
    );
    expect((await other.company.get('/api/automations')).body).toEqual([]);
  });

  describe('bad input', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['no name', { name: undefined }, 'name'],
      ['an unknown schedule type', { scheduleType: 'HOURLY' }, 'scheduleType'],
      ['no schedule', { schedule: undefined }, 'schedule'],
      [
        'an invalid zone',
        { schedule: { timeOfDay: '09:00', timezone: 'Mars/Base' } },
        'schedule.timezone',
      ],
      [
        'an invalid time',
        { schedule: { timeOfDay: '25:00', timezone: 'America/Sao_Paulo' } },
        'schedule.timeOfDay',
      ],
      ['WEEKLY without weekdays', { scheduleType: 'WEEKLY' }, 'schedule.weekdays'],
      [
        'weekday 8',
        { schedule: { timeOfDay: '09:00', timezone: 'America/Sao_Paulo', weekdays: [8] } },
        'schedule.weekdays',
      ],
      ['MONTHLY without dayOfMonth', { scheduleType: 'MONTHLY' }, 'schedule.dayOfMonth'],
      [
        'CRON without expression',
        { scheduleType: 'CRON', schedule: { timezone: 'America/Sao_Paulo' } },
        'schedule.cronExpression',
      ],
      [
        'a six-field cron',
        {
          scheduleType: 'CRON',
          schedule: { timezone: 'America/Sao_Paulo', cronExpression: '0 0 9 * * *' },
        },
        'schedule.cronExpression',
      ],
      [
        'an unknown schedule field',
        { schedule: { timeOfDay: '09:00', timezone: 'America/Sao_Paulo', every: 2 } },
        'schedule.every',
      ],
      [
        'a filter on an unknown column',
        { filters: [{ filterId: 'cidade', value: 'x' }] },
        'filters[0].filterId',
      ],
      [
        'an unknown operator',
        { filters: [{ filterId: 'nome', value: 'x', operator: 'like' }] },
        'filters[0].operator',
      ],
      [
        'equals without a value',
        { filters: [{ filterId: 'nome', operator: 'equals' }] },
        'filters[0].value',
      ],
      [
        'TODAY on the phone column',
        { filters: [{ filterId: 'telefone', value: 'TODAY' }] },
        'filters[0].value',
      ],
      ['no messageConfig', { messageConfig: undefined }, 'messageConfig'],
      ['TEXT without message', { messageConfig: { type: 'TEXT' } }, 'messageConfig.message'],
      [
        'MEDIA without mediaUrl',
        { messageConfig: { type: 'MEDIA', message: 'oi' } },
        'messageConfig.mediaUrl',
      ],
      ['POLL without pollData', { messageConfig: { type: 'POLL' } }, 'messageConfig.pollData'],
      ['an unknown message kind', { messageConfig: { type: 'STICKER' } }, 'messageConfig.type'],
      [
        'a message with a brace never closed',
        {
          messageConfig: { type: 'TEXT', message: '{Feliz aniversário|Parabéns, {PrimeiroNome}!' },
        },
        'messageConfig.message',
      ],
      [
        'a message with a group of 21 variants',
        {
          messageConfig: {
            type: 'TEXT',
            message: `{${Array.from({ length: 21 }, (_v, i) => `v${i}`).join('|')}}`,
          },
        },
        'messageConfig.message',
      ],
      [
        'a caption with empty braces',
        {
          messageConfig: {
            type: 'MEDIA',
            mediaUrl: 'data:image/png;base64,iVBORw0KGgo=',
            caption: 'Parabéns {}',
          },
        },
        'messageConfig.caption',
      ],
      [
        'a poll question with groups of variants 4 deep',
        {
          messageConfig: {
            type: 'POLL',
            pollData: { name: '{a|{b|{c|{d|e}}}}?', options: ['Sim', 'Não'], selectableCount: 1 },
          },
        },
        'messageConfig.pollData.name',
      ],
      ['COOLDOWN_DAYS without days', { dedupStrategy: 'COOLDOWN_DAYS' }, 'dedupCooldownDays'],
      ['an unknown dedup strategy', { dedupStrategy: 'TWICE' }, 'dedupStrategy'],
      ['sendLimitPerRun 0', { sendLimitPerRun: 0 }, 'sendLimitPerRun'],
      [
        'min interval over max',
        { intervalMinSeconds: 10, intervalMaxSeconds: 5 },
        'intervalMinSeconds',
      ],
      ['an invalid notificationPhone', { notificationPhone: '12' }, 'notificationPhone'],
      ['no databaseConfigId', { databaseConfigId: undefined }, 'databaseConfigId'],
      ['no gatewayConfigId', { gatewayConfigId: undefined }, 'gatewayConfigId'],
      ['an unknown field', { frequency: 'daily' }, 'frequency'],
    ];

    it.each(cases)(
      'refuses %s with 400 naming the field, creating nothing',
      async (_label, change, field) => {
        const { company, databaseId, gatewayConfigId } = await setUp();
        const body = birthdayBody(databaseId, gatewayConfigId, change);
        for (const [key, value] of Object.entries(change)) {
          if (value === undefined) {
            delete body[key];
          }
        }
        const message = expectErrorBody(
          await company.post('/api/automations', body),
          400,
          '/api/automations',
        );
        expect(message).toContain(`${field}=`);
        expect(await countRows('automations', 'company_id = $1', [company.id])).toBe(0);
      },
    );

    it('answers 404 for a database or gateway configuration that does not exist', async () => {
      const { company, databaseId, gatewayConfigId } = await setUp();
      expectErrorBody(
        await company.post('/api/automations', birthdayBody(999999, gatewayConfigId)),
        404,
      );
      expectErrorBody(
        await company.post('/api/automations', birthdayBody(databaseId, 999999)),
        404,
      );
      expect(await countRows('automations', 'company_id = $1', [company.id])).toBe(0);
    });
  });
});
