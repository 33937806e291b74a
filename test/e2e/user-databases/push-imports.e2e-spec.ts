import { Client } from 'pg';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import {
  ADMIN_HEADER,
  startTestApp,
  TestApp,
  TestCompany,
  testDatabaseUrl,
} from '../../support/test-app';
import { sleep, until } from '../../support/waiting';
import { SHARED_ENCRYPTION_KEY, startWorkerProcess } from '../../support/worker-process';
import { columnShapes, contactsDatabase } from '../../support/user-databases';
import { LARGE_DATABASE_ROWS } from '../../../src/modules/user-databases/application/ports/record-indexes.repository';

function contacts(count: number, start = 0): Array<{ phoneNumber: string; name: string }> {
  return Array.from({ length: count }, (_v, i) => ({
    phoneNumber: `55119${String(70000000 + start + i).padStart(8, '0')}`,
    name: `Contato ${start + i}`,
  }));
}

async function waitForJob(
  company: TestCompany,
  jobId: number,
  reached: (job: any) => boolean,
  timeoutMs = 60_000,
): Promise<any> {
  return until(
    async () =>
      (await company.get(`/api/companies/${company.id}/imports/jobs/${jobId}`).expect(200)).body,
    reached,
    timeoutMs,
    `the expected state of job ${jobId}`,
  );
}

describe('push imports', () => {
  // No import worker in this app: each test starts the workers it means to run.
  const { t } = useE2eFixture({ role: 'api' });

  const importsOf = (company: TestCompany) => `/api/companies/${company.id}/imports`;

  describe('synchronous', () => {
    it.each([
      [[{ name: 'Sem telefone' }], 0],
      [[{ phoneNumber: '11987654321' }, { phoneNumber: '   ', name: 'Branco' }], 1],
      [[{ phoneNumber: '11987654321' }, { phoneNumber: 11987654322 }], 1],
      [[{ phoneNumber: '11987654321' }, 'texto'], 1],
    ])(
      'refuses contacts without a phoneNumber (400 naming the item), creating nothing',
      async (list, index) => {
        const company = await TestCompany.register(t.http);
        for (const mode of ['', '?async=true']) {
          const path = `${importsOf(company)}/contacts${mode}`;
          const response = await company.post(path, { contacts: list });
          expect(expectErrorBody(response, 400)).toContain(
            `contacts=item ${index}: phoneNumber é obrigatório`,
          );
        }
        const { rows } = await db().query(
          `SELECT (SELECT count(*)::int FROM user_databases WHERE company_id = $1) AS databases,
                (SELECT count(*)::int FROM contact_import_jobs WHERE company_id = $1) AS jobs`,
          [company.id],
        );
        expect(rows[0]).toEqual({ databases: 0, jobs: 0 });
      },
    );

    it('creates a PUSH_IMPORT database with a generated name, normalized phones, repeats removed and invalid rows explained', async () => {
      const company = await TestCompany.register(t.http);
      const response = await company
        .post(`${importsOf(company)}/contacts`, {
          contacts: [
            { phoneNumber: '(11) 98765-4321', name: 'Maria', cidade: 'São Paulo' },
            { phoneNumber: '+55 11 98765-4321', name: 'Maria outra vez' },
            { phoneNumber: '123', name: 'Curto' },
            { phoneNumber: '21998765432', name: 'João', vip: true, pontos: 10 },
          ],
        })
        .expect(201);
      expect(response.body.name).toMatch(/^Importação \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/);
      expect(response.body).toMatchObject({
        origin: 'PUSH_IMPORT',
        status: 'ACTIVE',
        rowCount: 2,
        importSummary: {
          totalRows: 4,
          imported: 2,
          duplicatesRemoved: 1,
          invalidRows: 1,
          errors: [{ row: 2, reason: 'phoneNumber: número de telefone inválido ("123")' }],
        },
      });
      expect(columnShapes(response.body)).toEqual([
        ['phone_number', 'PHONE', true, false],
        ['name', 'TEXT', false, true],
        ['cidade', 'TEXT', false, false],
        ['vip', 'TEXT', false, false],
        ['pontos', 'TEXT', false, false],
      ]);
      const { rows } = await db().query(
        `SELECT values FROM user_database_records WHERE database_id = $1 ORDER BY id`,
        [response.body.id],
      );
      expect(rows.map((r) => r.values)).toEqual([
        { phone_number: '5511987654321', name: 'Maria', cidade: 'São Paulo' },
        { phone_number: '5521998765432', name: 'João', vip: 'true', pontos: '10' },
      ]);
    });

    it('keeps repeated phones with dedupe false, and uses the given name and description', async () => {
      const company = await TestCompany.register(t.http);
      const response = await company
        .post(`${importsOf(company)}/contacts`, {
          name: 'Lista do CRM',
          description: 'Exportada hoje',
          dedupe: false,
          contacts: [{ phoneNumber: '11987654321' }, { phoneNumber: '11987654321' }],
        })
        .expect(201);
      expect(response.body).toMatchObject({
        name: 'Lista do CRM',
        description: 'Exportada hoje',
        rowCount: 2,
      });
      expect(response.body.importSummary).toMatchObject({ imported: 2, duplicatesRemoved: 0 });
    });

    it('imports generic rows by their phone column, and refuses rows without one (400, nothing created)', async () => {
      const company = await TestCompany.register(t.http);
      const response = await company
        .post(`${importsOf(company)}/contacts/generic`, {
          rows: [
            { Nome: 'Ana', Telefone: '11987654321', Plano: 'Ouro' },
            { Nome: 'Bia', Telefone: '11987654322', Plano: 'Prata' },
          ],
        })
        .expect(201);
      expect(
        response.body.columns.map((c: any) => [c.columnName, c.isPhoneColumn, c.isNameColumn]),
      ).toEqual([
        ['nome', false, true],
        ['telefone', true, false],
        ['plano', false, false],
      ]);
      expect(response.body.importSummary).toEqual({
        totalRows: 2,
        imported: 2,
        duplicatesRemoved: 0,
        invalidRows: 0,
        errors: [],
      });
      const before = await countRows('user_databases', 'company_id = $1', [company.id]);
      const message = expectErrorBody(
        await company.post(`${importsOf(company)}/contacts/generic`, { rows: [{ nome: 'Ana' }] }),
        400,
      );
      expect(message).toBe(
        'Nenhuma coluna de telefone nas linhas: use uma chave como phone, phoneNumber ou telefone',
      );
      expect(await countRows('user_databases', 'company_id = $1', [company.id])).toBe(before);
    });

    it('appends to an existing database: keys map to its columns, new keys add columns, known phones are skipped', async () => {
      const company = await TestCompany.register(t.http);
      const id = await contactsDatabase(t.http, company, 2);
      const response = await company
        .post(`${importsOf(company)}/contacts`, {
          databaseId: id,
          contacts: [
            { phoneNumber: '5511900000000', Nome: 'Repetida' },
            { phoneNumber: '11987654321', Nome: 'Nova', Cidade: 'Natal', Plano: 'ouro' },
          ],
        })
        .expect(201);
      expect(response.body).toMatchObject({ id, origin: 'UPLOAD', rowCount: 3 });
      expect(response.body.importSummary).toMatchObject({
        totalRows: 2,
        imported: 1,
        duplicatesRemoved: 1,
        invalidRows: 0,
      });
      expect(response.body.columns.map((c: any) => [c.columnName, c.position])).toEqual([
        ['nome', 1],
        ['telefone', 2],
        ['email', 3],
        ['cidade', 4],
        ['plano', 5],
      ]);
      const newest = (await company.get(`/api/user-databases/${id}/records?size=1`).expect(200))
        .body.content[0];
      expect(newest.values).toEqual({
        nome: 'Nova',
        telefone: '5511987654321',
        email: null,
        cidade: 'Natal',
        plano: 'ouro',
      });
    });

    it('takes rows as sent without their __proto__, prototype and constructor keys, and pollutes nothing', async () => {
      const company = await TestCompany.register(t.http);
      const body =
        '{"name":"Hostil","__proto__":{"polluted":true},"rows":[' +
        '{"telefone":"11987654321","nome":"Ana","__proto__":{"polluted":true},"constructor":"x","prototype":"y"},' +
        '{"telefone":"11987654322","nome":{"__proto__":{"polluted":true}}}]}';
      const response = await t.http
        .post(`${importsOf(company)}/contacts/generic`)
        .set(company.auth)
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(201);
      expect(response.body.columns.map((c: any) => c.columnName)).toEqual(['telefone', 'nome']);
      expect(response.body.importSummary).toMatchObject({ imported: 1, invalidRows: 1 });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      const records = (
        await company.get(`/api/user-databases/${response.body.id}/records`).expect(200)
      ).body.content;
      expect(records.map((r: any) => r.values)).toEqual([
        { telefone: '5511987654321', nome: 'Ana' },
      ]);
    });

    it('puts off a large database’s search index while loads keep coming, and builds it once they settle', async () => {
      const company = await TestCompany.register(t.http);
      const created = await company
        .post(`${importsOf(company)}/contacts`, { contacts: contacts(LARGE_DATABASE_ROWS) })
        .expect(201);
      const id = created.body.id as number;
      const request = async (): Promise<{ state: string; attempts: number; notBefore: Date }> =>
        (
          await db().query(
            `SELECT state, attempts, locked_until AS "notBefore" FROM user_database_indexes WHERE name = $1`,
            [`udr_search_${id}`],
          )
        ).rows[0];
      const first = await request();
      expect(first).toMatchObject({ state: 'PENDING', attempts: 0 });
      expect(first.notBefore.getTime()).toBeGreaterThan(Date.now() + 2_000);

      // A real span: the second import comes more than a second later, and so does the index.
      await sleep(1_100);
      await company
        .post(`${importsOf(company)}/contacts`, {
          databaseId: id,
          contacts: contacts(1, LARGE_DATABASE_ROWS),
        })
        .expect(201);
      const second = await request();
      expect(second).toMatchObject({ state: 'PENDING', attempts: 0 });
      expect(second.notBefore.getTime()).toBeGreaterThan(first.notBefore.getTime() + 1_000);

      const worker = await startWorkerProcess();
      try {
        await until(request, (index) => index.state === 'READY', 60_000);
        expect(await request()).toMatchObject({ state: 'READY' });
      } finally {
        await worker.stop();
      }
    });

    it('refuses other companies’ and read-only targets, oversized and malformed bodies, and a foreign companyId', async () => {
      const company = await TestCompany.register(t.http);
      const other = await TestCompany.register(t.http);
      const foreign = await contactsDatabase(t.http, other, 1);
      const system = (await company.get('/api/user-databases').expect(200)).body[0].id;
      const one = [{ phoneNumber: '11987654321' }];
      expectErrorBody(
        await company.post(`${importsOf(company)}/contacts`, {
          databaseId: foreign,
          contacts: one,
        }),
        403,
      );
      expectErrorBody(
        await company.post(`${importsOf(company)}/contacts`, { databaseId: system, contacts: one }),
        403,
      );
      expectErrorBody(
        await company.post(`${importsOf(company)}/contacts`, {
          databaseId: 999999999,
          contacts: one,
        }),
        404,
      );
      expectErrorBody(await company.post(`${importsOf(other)}/contacts`, { contacts: one }), 403);
      expect(
        expectErrorBody(
          await company.post(`${importsOf(company)}/contacts`, { contacts: contacts(100_001) }),
          400,
        ),
      ).toBe(
        '{contacts=deve ter no máximo 100000 linhas por requisição; envie em lotes com databaseId}',
      );
      expect(
        expectErrorBody(
          await company.post(`${importsOf(company)}/contacts`, { contacts: one, extra: 1 }),
          400,
        ),
      ).toBe('{extra=campo desconhecido}');
      expect(
        expectErrorBody(
          await company.post(`${importsOf(company)}/contacts`, { contacts: [] }),
          400,
        ),
      ).toBe('{contacts=deve ter ao menos 1 contato}');
      expect(
        expectErrorBody(
          await company.post(`${importsOf(company)}/contacts?async=sim`, { contacts: one }),
          400,
        ),
      ).toBe('{async=deve ser true ou false}');
      expect(
        await countRows('user_databases', `company_id = $1 AND origin <> 'SYSTEM'`, [company.id]),
      ).toBe(0);
      expect(await countRows('user_database_records', 'database_id = $1', [foreign])).toBe(1);
    });

    it('refuses a new database past the plan limit, sync and async', async () => {
      const company = await TestCompany.register(t.http);
      await t.http
        .patch(`/api/admin/companies/${company.id}`)
        .set(ADMIN_HEADER)
        .send({ databaseLimit: 0 })
        .expect(200);
      const body = { contacts: [{ phoneNumber: '11987654321' }] };
      expectErrorBody(await company.post(`${importsOf(company)}/contacts`, body), 400);
      expectErrorBody(await company.post(`${importsOf(company)}/contacts?async=true`, body), 400);
      expect(await countRows('contact_import_jobs', 'company_id = $1', [company.id])).toBe(0);
    });
  });

  describe('asynchronous', () => {
    // A worker app beside the API: it runs the import jobs.
    useE2eFixture({ env: { ROLE: 'worker' } });

    it('answers 202 with a PENDING job that a worker completes', async () => {
      const company = await TestCompany.register(t.http);
      const accepted = await company
        .post(`${importsOf(company)}/contacts?async=true`, {
          name: 'Lote',
          contacts: [...contacts(250), { phoneNumber: 'x' }],
        })
        .expect(202);
      expect(Object.keys(accepted.body).sort()).toEqual(['jobId', 'status', 'submittedAt']);
      expect(accepted.body.status).toBe('PENDING');
      expect(new Date(accepted.body.submittedAt).toISOString()).toBe(accepted.body.submittedAt);
      const job = await waitForJob(company, accepted.body.jobId, (j) => j.status === 'COMPLETED');
      expect(job).toMatchObject({
        jobId: accepted.body.jobId,
        submittedAt: accepted.body.submittedAt,
        totalRows: 251,
        imported: 250,
        duplicatesRemoved: 0,
        invalidRows: 1,
        errors: [{ row: 250, reason: 'phoneNumber: número de telefone inválido ("x")' }],
        error: null,
      });
      expect(new Date(job.finishedAt).getTime()).toBeGreaterThanOrEqual(
        new Date(job.startedAt).getTime(),
      );
      expect(
        (await company.get(`/api/user-databases/${job.databaseId}`).expect(200)).body,
      ).toMatchObject({ name: 'Lote', rowCount: 250 });
      const { rows } = await db().query(`SELECT payload FROM contact_import_jobs WHERE id = $1`, [
        job.jobId,
      ]);
      expect(rows[0].payload).toBeNull();
    });

    it('fails a job whose rows cannot be imported, with the reason', async () => {
      const company = await TestCompany.register(t.http);
      const accepted = await company
        .post(`${importsOf(company)}/contacts/generic?async=true`, { rows: [{ nome: 'Ana' }] })
        .expect(202);
      const job = await waitForJob(company, accepted.body.jobId, (j) => j.status === 'FAILED');
      expect(job).toMatchObject({
        error:
          'Nenhuma coluna de telefone nas linhas: use uma chave como phone, phoneNumber ou telefone',
        databaseId: null,
        imported: null,
      });
    });

    it('answers 404 for a missing job and 403 for another company’s', async () => {
      const company = await TestCompany.register(t.http);
      const other = await TestCompany.register(t.http);
      const accepted = await company
        .post(`${importsOf(company)}/contacts?async=true`, { contacts: contacts(1) })
        .expect(202);
      expectErrorBody(await other.get(`${importsOf(other)}/jobs/${accepted.body.jobId}`), 403);
      expectErrorBody(await company.get(`${importsOf(company)}/jobs/999999999`), 404);
      expectErrorBody(await other.get(`${importsOf(company)}/jobs/${accepted.body.jobId}`), 403);
    });
  });

  describe('kill safety', () => {
    it('takes over a job whose worker died (lease expired) and imports it once; a live holder is never overtaken', async () => {
      const company = await TestCompany.register(t.http);
      const payload = {
        kind: 'CONTACTS',
        name: 'Retomada',
        description: null,
        dedupe: true,
        databaseId: null,
        rows: contacts(12_000),
      };
      // A job claimed by a worker whose lease has not run out yet: nobody else may take it.
      const { rows } = await db().query(
        `INSERT INTO contact_import_jobs (company_id, kind, status, payload, total_rows, attempts, locked_by, locked_until, submitted_at, started_at)
         VALUES ($1, 'CONTACTS', 'RUNNING', $2, 12000, 1, 'morto', now() + interval '1 hour', now(), now()) RETURNING id`,
        [company.id, JSON.stringify(payload)],
      );
      const jobId = rows[0].id as number;
      // That worker is still alive inside its transaction (it holds a lock on the job row)…
      const holder = new Client({ connectionString: testDatabaseUrl() });
      await holder.connect();
      let holderOpen = true;
      const closeHolder = async (): Promise<void> => {
        if (holderOpen) {
          holderOpen = false;
          await holder.end();
        }
      };
      const worker = await startTestApp({ ROLE: 'worker' });
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT id FROM contact_import_jobs WHERE id = $1 FOR KEY SHARE`, [
          jobId,
        ]);
        // …when its lease runs out.
        await db().query(
          `UPDATE contact_import_jobs SET locked_until = now() - interval '1 minute' WHERE id = $1`,
          [jobId],
        );
        // A real span: the workers look again and again, and the live holder keeps its job.
        await sleep(3_000);
        const held = (
          await db().query(
            `SELECT status, locked_by, attempts FROM contact_import_jobs WHERE id = $1`,
            [jobId],
          )
        ).rows[0];
        expect(held).toEqual({ status: 'RUNNING', locked_by: 'morto', attempts: 1 });
        expect(await countRows('user_database_records', 'company_id = $1', [company.id])).toBe(0);
        // The holder dies: its connection goes without a commit.
        await closeHolder();
        const job = await waitForJob(company, jobId, (j) => j.status === 'COMPLETED', 90_000);
        expect(job).toMatchObject({
          totalRows: 12_000,
          imported: 12_000,
          duplicatesRemoved: 0,
          invalidRows: 0,
        });
        expect(await countRows('user_database_records', 'database_id = $1', [job.databaseId])).toBe(
          12_000,
        );
      } finally {
        await closeHolder();
        await worker.close();
      }
      expect(
        (await db().query(`SELECT attempts FROM contact_import_jobs WHERE id = $1`, [jobId]))
          .rows[0].attempts,
      ).toBe(2);
      expect(
        await countRows('user_databases', `company_id = $1 AND origin = 'PUSH_IMPORT'`, [
          company.id,
        ]),
      ).toBe(1);
    }, 120_000);

    it('survives kill -9 of the worker mid-import: nothing half-written, the job is retried and completes once', async () => {
      const api = await startTestApp({ ROLE: 'api', ENCRYPTION_KEY: SHARED_ENCRYPTION_KEY });
      const company = await TestCompany.register(api.http);
      const doomed = await startWorkerProcess();
      let replacement: TestApp | undefined;
      try {
        const accepted = await company
          .post(`${importsOf(company)}/contacts?async=true`, { contacts: contacts(100_000) })
          .expect(202);
        const jobId = accepted.body.jobId as number;
        const status = await until(
          async () =>
            (await db().query(`SELECT status FROM contact_import_jobs WHERE id = $1`, [jobId]))
              .rows[0].status,
          (current) => current !== 'PENDING',
          60_000,
        );
        expect(status).toBe('RUNNING');
        const claimed = await db().query(
          `SELECT locked_by FROM contact_import_jobs WHERE id = $1`,
          [jobId],
        );
        expect(claimed.rows[0].locked_by).toContain(`:${doomed.child.pid}:`);
        await doomed.kill9();
        const { rows } = await db().query(
          `SELECT status, attempts FROM contact_import_jobs WHERE id = $1`,
          [jobId],
        );
        expect(rows[0]).toEqual({ status: 'RUNNING', attempts: 1 });
        expect(await countRows('user_database_records', 'company_id = $1', [company.id])).toBe(0);
        replacement = await startTestApp({ ROLE: 'worker' });
        const job = await waitForJob(company, jobId, (j) => j.status === 'COMPLETED', 120_000);
        expect(job.imported).toBe(100_000);
        expect(await countRows('user_database_records', 'company_id = $1', [company.id])).toBe(
          100_000,
        );
        expect(
          (await db().query(`SELECT attempts FROM contact_import_jobs WHERE id = $1`, [jobId]))
            .rows[0].attempts,
        ).toBe(2);
      } finally {
        await doomed.stop();
        await replacement?.close();
        await api.close();
      }
    }, 240_000);
  });
});
