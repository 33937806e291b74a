import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany } from '../../support/test-app';
import { contactsDatabase, createDatabase, csv } from '../../support/user-databases';

interface RecordBody {
  id: number;
  values: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

describe('user databases and their records', () => {
  const { t } = useE2eFixture();

  /** Nome, Telefone, Idade (NUMBER), Nascimento (DATE), VIP (BOOLEAN), Email (EMAIL). */
  async function typedDatabase(company: TestCompany): Promise<number> {
    const text = csv([
      ['Nome', 'Telefone', 'Idade', 'Nascimento', 'VIP', 'Email'],
      ['Ana', '11987650001', '9', '1990-01-01', 'sim', 'ana@x.com'],
      ['Álvaro', '11987650002', '10', '1980-01-01', 'não', 'alvaro@x.com'],
      ['bruno', '11987650003', '100', '', '', ''],
      ['Bia', '11987650004', '', '2000-01-01', 'sim', 'bia@x.com'],
    ]);
    const response = await createDatabase(t.http, company, Buffer.from(text), 't.csv', {
      name: 'Tipada',
      columnMappings: [
        { originalName: 'Nome' },
        { originalName: 'Telefone', isPhoneColumn: true },
        { originalName: 'Idade', dataType: 'NUMBER' },
        { originalName: 'Nascimento', dataType: 'DATE' },
        { originalName: 'VIP', dataType: 'BOOLEAN' },
        { originalName: 'Email', dataType: 'EMAIL' },
      ],
    }).expect(201);
    return response.body.id as number;
  }

  const names = (page: { body: { content: RecordBody[] } }): unknown[] =>
    page.body.content.map((r) => r.values.nome);

  describe('databases', () => {
    it('lists the SYSTEM database first (created on first sight) and then the newest, and counts them against the limit', async () => {
      const company = await TestCompany.register(t.http);
      const first = await contactsDatabase(t.http, company, 2, 'Primeira');
      const second = await contactsDatabase(t.http, company, 1, 'Segunda');
      const list = (await company.get('/api/user-databases').expect(200)).body as Array<
        Record<string, any>
      >;
      expect(list.map((d) => [d.name, d.origin])).toEqual([
        ['Contatos de campanhas', 'SYSTEM'],
        ['Segunda', 'UPLOAD'],
        ['Primeira', 'UPLOAD'],
      ]);
      expect(list[0]).toMatchObject({ status: 'ACTIVE', rowCount: 0 });
      expect(
        list[0].columns.map((c: { columnName: string; dataType: string }) => [
          c.columnName,
          c.dataType,
        ]),
      ).toEqual([
        ['phone', 'PHONE'],
        ['name', 'TEXT'],
        ['last_campaign_id', 'NUMBER'],
        ['last_sent_at', 'DATE'],
      ]);
      expect(list.map((d) => d.id)).toEqual([list[0].id, second, first]);
      expect((await company.get('/api/user-databases/count').expect(200)).body).toEqual({
        userDatabases: 2,
        systemDatabases: 1,
        totalDatabases: 3,
        limit: 20,
        remaining: 18,
      });
      expect(
        await countRows('user_databases', `company_id = $1 AND origin = 'SYSTEM'`, [company.id]),
      ).toBe(1);
    });

    it('gets one database, 404 when missing, 403 when it is another company’s, 400 for a bad id', async () => {
      const owner = await TestCompany.register(t.http);
      const other = await TestCompany.register(t.http);
      const id = await contactsDatabase(t.http, owner, 2);
      const response = await owner.get(`/api/user-databases/${id}`).expect(200);
      expect(response.body).toMatchObject({ id, name: 'Clientes', rowCount: 2, origin: 'UPLOAD' });
      expectErrorBody(await owner.get('/api/user-databases/999999999'), 404);
      expect(expectErrorBody(await other.get(`/api/user-databases/${id}`), 403)).toBe(
        'Este recurso pertence a outra empresa',
      );
      expectErrorBody(await owner.get('/api/user-databases/abc'), 400);
    });

    it('toggles ACTIVE and INACTIVE; other statuses, the SYSTEM database and other companies are refused', async () => {
      const company = await TestCompany.register(t.http);
      const other = await TestCompany.register(t.http);
      const id = await contactsDatabase(t.http, company, 1);
      expect(
        (await company.patch(`/api/user-databases/${id}/toggle-status`).expect(200)).body.status,
      ).toBe('INACTIVE');
      expect(
        (await company.patch(`/api/user-databases/${id}/toggle-status`).expect(200)).body.status,
      ).toBe('ACTIVE');
      await db().query(`UPDATE user_databases SET status = 'ERROR' WHERE id = $1`, [id]);
      expect(
        expectErrorBody(await company.patch(`/api/user-databases/${id}/toggle-status`), 400),
      ).toBe('Só bases ACTIVE ou INACTIVE podem alternar o status (status atual: ERROR)');
      expectErrorBody(await other.patch(`/api/user-databases/${id}/toggle-status`), 403);
      const system = (await company.get('/api/user-databases').expect(200)).body[0];
      expectErrorBody(await company.patch(`/api/user-databases/${system.id}/toggle-status`), 403);
      expect(
        (await db().query(`SELECT status FROM user_databases WHERE id = $1`, [system.id])).rows[0]
          .status,
      ).toBe('ACTIVE');
    });

    it('deletes a database with its records (204); not the SYSTEM one nor another company’s', async () => {
      const company = await TestCompany.register(t.http);
      const other = await TestCompany.register(t.http);
      const id = await contactsDatabase(t.http, company, 3);
      expectErrorBody(await other.delete(`/api/user-databases/${id}`), 403);
      expect(await countRows('user_database_records', 'database_id = $1', [id])).toBe(3);
      await company.delete(`/api/user-databases/${id}`).expect(204);
      expect(await countRows('user_databases', 'id = $1', [id])).toBe(0);
      expect(await countRows('user_database_records', 'database_id = $1', [id])).toBe(0);
      expectErrorBody(await company.delete(`/api/user-databases/${id}`), 404);
      const system = (await company.get('/api/user-databases').expect(200)).body[0];
      expect(expectErrorBody(await company.delete(`/api/user-databases/${system.id}`), 403)).toBe(
        'A base "Contatos de campanhas" é mantida pelo serviço e não pode ser alterada',
      );
      expect(await countRows('user_databases', 'id = $1', [system.id])).toBe(1);
    });
  });

  describe('records', () => {
    it('pages with the envelope, newest first by default, with totals', async () => {
      const company = await TestCompany.register(t.http);
      const id = await contactsDatabase(t.http, company, 7);
      const page = await company.get(`/api/user-databases/${id}/records?size=3&page=1`).expect(200);
      expect(page.body).toMatchObject({ totalElements: 7, totalPages: 3, size: 3, number: 1 });
      expect(names(page)).toEqual(['Pessoa 3', 'Pessoa 2', 'Pessoa 1']);
      const record = page.body.content[0] as RecordBody;
      expect(Object.keys(record).sort()).toEqual(['createdAt', 'id', 'updatedAt', 'values']);
      expect(record.values).toEqual({
        nome: 'Pessoa 3',
        telefone: '5511900000003',
        email: 'p3@exemplo.com.br',
        cidade: 'São Paulo',
      });
      const defaults = await company.get(`/api/user-databases/${id}/records`).expect(200);
      expect(defaults.body).toMatchObject({ size: 25, number: 0, totalPages: 1 });
    });

    it('sorts by id, dates and columns in either direction (any case), numbers as numbers', async () => {
      const company = await TestCompany.register(t.http);
      const id = await typedDatabase(company);
      const sorted = async (query: string) =>
        names(await company.get(`/api/user-databases/${id}/records?${query}`).expect(200));
      expect(await sorted('sortBy=idade&sortDirection=asc')).toEqual([
        'Ana',
        'Álvaro',
        'bruno',
        'Bia',
      ]);
      expect(await sorted('sortBy=idade&sortDirection=DESC')).toEqual([
        'Bia',
        'bruno',
        'Álvaro',
        'Ana',
      ]);
      expect(await sorted('sortBy=nascimento&sortDirection=Asc')).toEqual([
        'Álvaro',
        'Ana',
        'Bia',
        'bruno',
      ]);
      expect(await sorted('sortBy=id&sortDirection=asc')).toEqual([
        'Ana',
        'Álvaro',
        'bruno',
        'Bia',
      ]);
      expect(await sorted('sortBy=created_at&sortDirection=asc')).toEqual([
        'Ana',
        'Álvaro',
        'bruno',
        'Bia',
      ]);
      expect(await sorted('sortBy=updated_at')).toEqual(['Bia', 'bruno', 'Álvaro', 'Ana']);
    });

    it('refuses unknown and malicious sortBy, bad directions and sizes with 400, and nothing is dropped', async () => {
      const company = await TestCompany.register(t.http);
      const id = await typedDatabase(company);
      const base = `/api/user-databases/${id}/records`;
      for (const sortBy of [
        'id; DROP TABLE user_database_records',
        "values->>'nome'",
        'nome desc',
        'desconhecida',
        '1',
      ]) {
        const message = expectErrorBody(await company.get(base).query({ sortBy }), 400);
        expect(message).toBe(
          '{sortBy=deve ser id, created_at, updated_at ou uma coluna da base (nome, telefone, idade, nascimento, vip, email)}',
        );
      }
      expect(expectErrorBody(await company.get(`${base}?sortDirection=up`), 400)).toBe(
        '{sortDirection=deve ser ASC ou DESC}',
      );
      expect(expectErrorBody(await company.get(`${base}?sortDirection=DESC;DROP`), 400)).toBe(
        '{sortDirection=deve ser ASC ou DESC}',
      );
      expect(expectErrorBody(await company.get(`${base}?size=101`), 400)).toBe(
        '{size=deve ser de 1 a 100}',
      );
      expect(expectErrorBody(await company.get(`${base}?size=0`), 400)).toBe(
        '{size=deve ser de 1 a 100}',
      );
      expect(expectErrorBody(await company.get(`${base}?page=-1`), 400)).toBe(
        '{page=não pode ser negativo}',
      );
      expect(expectErrorBody(await company.get(`${base}?search=${'x'.repeat(101)}`), 400)).toBe(
        '{search=deve ter no máximo 100 caracteres}',
      );
      expect(expectErrorBody(await company.get(`${base}?outro=1`), 400)).toBe(
        '{outro=campo desconhecido}',
      );
      expect(await countRows('user_database_records', 'database_id = $1', [id])).toBe(4);
    });

    it('searches case- and accent-insensitively over text columns and the id, with % and _ taken literally', async () => {
      const company = await TestCompany.register(t.http);
      const id = await typedDatabase(company);
      const search = async (term: string) =>
        (
          await company
            .get(`/api/user-databases/${id}/records`)
            .query({ search: term, sortDirection: 'asc' })
            .expect(200)
        ).body;
      expect(names({ body: await search('ALVARO') })).toEqual(['Álvaro']);
      expect(names({ body: await search('B') })).toEqual(['bruno', 'Bia']);
      expect((await search('b')).totalElements).toBe(2);
      const paged = async (query: string) =>
        (await company.get(`/api/user-databases/${id}/records?search=b&${query}`).expect(200)).body;
      expect(await paged('size=1')).toMatchObject({ totalElements: 2, totalPages: 2, number: 0 });
      expect(await paged('size=1&page=1')).toMatchObject({
        totalElements: 2,
        totalPages: 2,
        number: 1,
      });
      expect(await paged('size=1&page=7')).toMatchObject({
        content: [],
        totalElements: 2,
        number: 7,
      });
      expect(names({ body: await search('(11) 98765-0004') })).toEqual(['Bia']);
      expect(names({ body: await search('%') })).toEqual([]);
      expect(names({ body: await search('1990') })).toEqual([]);
      const ana = (await search('Ana')).content[0] as RecordBody;
      expect(names({ body: await search(String(ana.id)) })).toContain('Ana');
    });

    it('creates, reads, updates (partially) and deletes a record, keeping rowCount', async () => {
      const company = await TestCompany.register(t.http);
      const id = await typedDatabase(company);
      const created = await company
        .post(`/api/user-databases/${id}/records`, {
          values: {
            nome: 'Carla',
            telefone: '+55 (21) 99876-5432',
            idade: '42',
            nascimento: '15/03/1983',
            vip: true,
            email: 'carla@x.com',
          },
        })
        .expect(201);
      const record = created.body as RecordBody;
      expect(record.values).toEqual({
        nome: 'Carla',
        telefone: '5521998765432',
        idade: 42,
        nascimento: '1983-03-15',
        vip: true,
        email: 'carla@x.com',
      });
      expect((await company.get(`/api/user-databases/${id}`).expect(200)).body.rowCount).toBe(5);
      expect(
        (await company.get(`/api/user-databases/${id}/records/${record.id}`).expect(200)).body,
      ).toEqual(record);
      const updated = await company
        .put(`/api/user-databases/${id}/records/${record.id}`, {
          values: { idade: 43, email: null },
        })
        .expect(200);
      expect(updated.body.values).toEqual({ ...record.values, idade: 43, email: null });
      expect(new Date(updated.body.updatedAt).getTime()).toBeGreaterThanOrEqual(
        new Date(record.updatedAt).getTime(),
      );
      const { rows } = await db().query(
        `SELECT phone, search_text FROM user_database_records WHERE id = $1`,
        [record.id],
      );
      expect(rows[0]).toEqual({ phone: '5521998765432', search_text: 'carla\u001f5521998765432' });
      await company.delete(`/api/user-databases/${id}/records/${record.id}`).expect(204);
      expectErrorBody(await company.get(`/api/user-databases/${id}/records/${record.id}`), 404);
      expectErrorBody(await company.delete(`/api/user-databases/${id}/records/${record.id}`), 404);
      expect((await company.get(`/api/user-databases/${id}`).expect(200)).body.rowCount).toBe(4);
    });

    it('refuses unknown keys, values of the wrong type and a missing or invalid phone, changing nothing', async () => {
      const company = await TestCompany.register(t.http);
      const id = await typedDatabase(company);
      const base = `/api/user-databases/${id}/records`;
      const cases: Array<[unknown, string]> = [
        [
          { values: { telefone: '11987654321', cor: 'azul' } },
          '{values.cor=coluna desconhecida nesta base}',
        ],
        [{ values: { telefone: '123' } }, '{values.telefone=número de telefone inválido}'],
        [{ values: { nome: 'Sem fone' } }, '{values.telefone=é obrigatório}'],
        [
          { values: { telefone: '11987654321', idade: 'dez' } },
          '{values.idade=deve ser um número}',
        ],
        [
          { values: { telefone: '11987654321', nascimento: '2024-02-30' } },
          '{values.nascimento=deve ser uma data ISO (AAAA-MM-DD) ou AAAA-MM-DDTHH:mm:ssZ}',
        ],
        [
          { values: { telefone: '11987654321', vip: 'talvez' } },
          '{values.vip=deve ser verdadeiro ou falso}',
        ],
        [
          { values: { telefone: '11987654321', email: 'x@' } },
          '{values.email=deve ser um e-mail válido}',
        ],
        [
          { values: { telefone: '11987654321', nome: 'x'.repeat(1001) } },
          '{values.nome=deve ter no máximo 1000 caracteres}',
        ],
        [
          { values: { telefone: '11987654321', nome: { a: 1 } } },
          '{values.nome=deve ser um texto}',
        ],
        [{ values: 'x' }, '{values=é obrigatório e deve ser um objeto {columnName: valor}}'],
        [
          { valores: {} },
          '{valores=campo desconhecido, values=é obrigatório e deve ser um objeto {columnName: valor}}',
        ],
      ];
      for (const [body, message] of cases) {
        expect(expectErrorBody(await company.post(base, body), 400)).toBe(message);
      }
      const first = ((await company.get(base).expect(200)).body.content as RecordBody[])[0];
      expect(
        expectErrorBody(
          await company.put(`${base}/${first.id}`, { values: { telefone: null } }),
          400,
        ),
      ).toBe('{values.telefone=é obrigatório}');
      expectErrorBody(await company.put(`${base}/999999999`, { values: { nome: 'x' } }), 404);
      expectErrorBody(await company.put(`${base}/abc`, { values: { nome: 'x' } }), 400);
      expect(await countRows('user_database_records', 'database_id = $1', [id])).toBe(4);
      expect((await company.get(`${base}/${first.id}`).expect(200)).body).toEqual(first);
    });

    it('answers 403 for another company’s database or record and 404 for a record of another database', async () => {
      const owner = await TestCompany.register(t.http);
      const other = await TestCompany.register(t.http);
      const id = await contactsDatabase(t.http, owner, 2);
      const otherId = await contactsDatabase(t.http, owner, 1, 'Outra');
      const record = (
        (await owner.get(`/api/user-databases/${id}/records`).expect(200)).body
          .content as RecordBody[]
      )[0];
      const base = `/api/user-databases/${id}/records`;
      expectErrorBody(await other.get(base), 403);
      expectErrorBody(await other.get(`${base}/${record.id}`), 403);
      expectErrorBody(await other.post(base, { values: { telefone: '11987654321' } }), 403);
      expectErrorBody(await other.put(`${base}/${record.id}`, { values: { nome: 'Hacker' } }), 403);
      expectErrorBody(await other.delete(`${base}/${record.id}`), 403);
      expectErrorBody(await owner.get(`/api/user-databases/${otherId}/records/${record.id}`), 404);
      expectErrorBody(await owner.get('/api/user-databases/999999999/records'), 404);
      expect((await owner.get(`${base}/${record.id}`).expect(200)).body).toEqual(record);
      expect(await countRows('user_database_records', 'database_id = $1', [id])).toBe(2);
    });

    it('keeps the SYSTEM database read-only through the records API (403), while it can be read', async () => {
      const company = await TestCompany.register(t.http);
      const system = (await company.get('/api/user-databases').expect(200)).body[0];
      await db().query(
        `INSERT INTO user_database_records (database_id, company_id, values, search_text, phone, is_system, created_at, updated_at)
         VALUES ($1, $2, '{"phone":"5511987654321","name":"Ana"}', 'ana', '5511987654321', true, now(), now())`,
        [system.id, company.id],
      );
      const base = `/api/user-databases/${system.id}/records`;
      const [record] = (await company.get(base).expect(200)).body.content as RecordBody[];
      expect(record.values).toEqual({
        phone: '5511987654321',
        name: 'Ana',
        last_campaign_id: null,
        last_sent_at: null,
      });
      expectErrorBody(await company.post(base, { values: { phone: '11987654322' } }), 403);
      expectErrorBody(
        await company.put(`${base}/${record.id}`, { values: { name: 'Outra' } }),
        403,
      );
      expectErrorBody(await company.delete(`${base}/${record.id}`), 403);
      expect((await company.get(`${base}/${record.id}`).expect(200)).body).toEqual(record);
    });
  });
});
