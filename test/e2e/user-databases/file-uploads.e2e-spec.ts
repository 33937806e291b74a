import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { ADMIN_HEADER, TestCompany } from '../../support/test-app';
import {
  CONTACT_MAPPINGS,
  contactsCsv,
  createDatabase,
  csv,
  hugeSheetXml,
  uploadFile,
  xlsx,
  xlsxEntries,
  xlsxWithSharedStringsLast,
  zip,
} from '../../support/user-databases';
import { until } from '../../support/waiting';

describe('user databases from files', () => {
  const { t } = useE2eFixture();

  /** Polls the catalog until the index exists and is valid (or, with false, until it is gone). */
  async function waitForIndex(name: string, present: boolean, timeoutMs = 120_000): Promise<void> {
    await until(
      async () =>
        (
          await db().query(`SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)`, [
            name,
          ])
        ).rows,
      (rows) => (present ? rows[0]?.indisvalid === true : rows.length === 0),
      timeoutMs,
      `index ${name} ${present ? 'valid' : 'dropped'}`,
    );
  }

  async function indexValid(name: string): Promise<boolean> {
    const { rows } = await db().query(
      `SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)`,
      [name],
    );
    return rows[0]?.indisvalid === true;
  }

  async function waitFor(condition: () => Promise<boolean>): Promise<void> {
    await until(condition, (holds) => holds, 30_000);
  }

  const databasesOf = (company: TestCompany): Promise<number> =>
    countRows('user_databases', `company_id = $1 AND origin <> 'SYSTEM'`, [company.id]);
  const recordsOf = (company: TestCompany): Promise<number> =>
    countRows('user_database_records', 'company_id = $1', [company.id]);

  function analyze(company: TestCompany, file: Buffer, filename = 'arquivo.csv') {
    return uploadFile(t.http, company, '/api/user-databases/analyze', file, filename);
  }

  describe('XLSX whatever the order of its parts', () => {
    const rows = [
      ['Nome', 'Telefone', 'Idade'],
      ['Ana Souza', '11987650001', 20],
      ['Bruno Lima', '11987650002', 31],
      ['Carla Dias', '11987650003', 45],
      ['Davi Reis', '11987650004', 52],
      ['Eva Prado', '11987650005', 28],
    ];

    it('reads every text cell with the shared strings after the worksheet, analysis and creation alike, every time', async () => {
      const company = await TestCompany.register(t.http);
      const file = await xlsxWithSharedStringsLast(rows);
      for (let attempt = 0; attempt < 12; attempt += 1) {
        const analysis = await analyze(company, file, 'contatos.xlsx').expect(200);
        expect([attempt, analysis.body.columns]).toEqual([attempt, ['Nome', 'Telefone', 'Idade']]);
        expect([attempt, analysis.body.sampleData.Nome]).toEqual([
          attempt,
          ['Ana Souza', 'Bruno Lima', 'Carla Dias', 'Davi Reis', 'Eva Prado'],
        ]);
      }
      for (let attempt = 0; attempt < 4; attempt += 1) {
        const created = await createDatabase(t.http, company, file, 'contatos.xlsx', {
          name: `Planilha ${attempt}`,
          columnMappings: [
            { originalName: 'Nome', displayName: 'Nome', dataType: 'TEXT', isPhoneColumn: false },
            {
              originalName: 'Telefone',
              displayName: 'Telefone',
              dataType: 'PHONE',
              isPhoneColumn: true,
            },
            {
              originalName: 'Idade',
              displayName: 'Idade',
              dataType: 'NUMBER',
              isPhoneColumn: false,
            },
          ],
        }).expect(201);
        const { rows: stored } = await db().query(
          `SELECT values->>'nome' AS nome FROM user_database_records WHERE database_id = $1 ORDER BY id`,
          [created.body.id],
        );
        expect([attempt, stored.map((r: { nome: string }) => r.nome)]).toEqual([
          attempt,
          ['Ana Souza', 'Bruno Lima', 'Carla Dias', 'Davi Reis', 'Eva Prado'],
        ]);
      }
    });

    it('refuses a file named .xlsx whose bytes are not a workbook, creating nothing', async () => {
      const company = await TestCompany.register(t.http);
      const fake = Buffer.from('nome,telefone\nAna,11987650001\n');
      const response = await analyze(company, fake, 'contatos.xlsx');
      expect(expectErrorBody(response, 400)).toMatch(/não é uma planilha XLSX válida/);
      const created = await createDatabase(t.http, company, fake, 'contatos.xlsx', {
        name: 'Falsa',
        columnMappings: [
          { originalName: 'nome', displayName: 'Nome', dataType: 'TEXT', isPhoneColumn: false },
          {
            originalName: 'telefone',
            displayName: 'Telefone',
            dataType: 'PHONE',
            isPhoneColumn: true,
          },
        ],
      });
      expectErrorBody(created, 400);
      expect(await countRows('user_databases', 'company_id = $1', [company.id])).toBe(0);
    });
  });

  describe('POST /api/user-databases/analyze', () => {
    it('reads a comma CSV: columns, valid rows, up to 5 samples per column and the phone column, writing nothing', async () => {
      const company = await TestCompany.register(t.http);
      const response = await analyze(company, contactsCsv(8)).expect(200);
      expect(response.body).toEqual({
        columns: ['Nome', 'Telefone', 'Email', 'Cidade'],
        rowCount: 8,
        sampleData: {
          Nome: ['Pessoa 0', 'Pessoa 1', 'Pessoa 2', 'Pessoa 3', 'Pessoa 4'],
          Telefone: [
            '5511900000000',
            '5511900000001',
            '5511900000002',
            '5511900000003',
            '5511900000004',
          ],
          Email: [
            'p0@exemplo.com.br',
            'p1@exemplo.com.br',
            'p2@exemplo.com.br',
            'p3@exemplo.com.br',
            'p4@exemplo.com.br',
          ],
          Cidade: ['São Paulo', 'Curitiba', 'Recife', 'São Paulo', 'Curitiba'],
        },
        warnings: [],
        fileType: 'CSV',
        encoding: 'utf-8',
        delimiter: ',',
        phoneColumn: 'Telefone',
      });
      expect(await databasesOf(company)).toBe(0);
    });

    it('detects Latin-1 (Windows-1252) with semicolons and decodes accents', async () => {
      const company = await TestCompany.register(t.http);
      const text = csv(
        [
          ['Nome', 'Situação', 'Celular'],
          ['João Conceição', 'Ação', '(11) 98765-4321'],
          ['Zé', 'ok', '11987654322'],
        ],
        ';',
      );
      const response = await analyze(company, Buffer.from(text, 'latin1')).expect(200);
      expect(response.body).toMatchObject({
        columns: ['Nome', 'Situação', 'Celular'],
        rowCount: 2,
        encoding: 'windows-1252',
        delimiter: ';',
        phoneColumn: 'Celular',
      });
      expect(response.body.sampleData.Nome).toEqual(['João Conceição', 'Zé']);
    });

    it('drops a UTF-8 byte order mark from the first header', async () => {
      const company = await TestCompany.register(t.http);
      const file = Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(
          csv([
            ['Nome', 'Telefone'],
            ['Ana', '11987654321'],
          ]),
        ),
      ]);
      const response = await analyze(company, file).expect(200);
      expect(response.body).toMatchObject({
        columns: ['Nome', 'Telefone'],
        encoding: 'utf-8',
        rowCount: 1,
      });
    });

    it('warns about repeated and empty headers, skips empty rows and counts rows with a bad phone', async () => {
      const company = await TestCompany.register(t.http);
      const text = csv([
        ['Nome', 'Telefone', '', 'Telefone'],
        ['Ana', '11987654321', 'x', '11987654329'],
        ['', '', '', ''],
        [],
        ['Bia', 'não tem', 'y', ''],
        ['Caio', '11987654323', 'z', ''],
      ] as Array<Array<string>>);
      const response = await analyze(company, Buffer.from(text)).expect(200);
      expect(response.body.columns).toEqual(['Nome', 'Telefone', 'Coluna 3', 'Telefone (2)']);
      expect(response.body.rowCount).toBe(2);
      expect(response.body.warnings).toEqual([
        'A coluna 3 não tem nome; foi chamada de "Coluna 3"',
        'A coluna "Telefone" aparece 2 vezes; as repetições foram renomeadas para "Telefone (2)"',
        '1 linha(s) com telefone vazio ou inválido na coluna "Telefone" serão ignoradas',
      ]);
    });

    it('warns when no column looks like a phone', async () => {
      const company = await TestCompany.register(t.http);
      const response = await analyze(
        company,
        Buffer.from(
          csv([
            ['Nome', 'Idade'],
            ['Ana', '31'],
          ]),
        ),
      ).expect(200);
      expect(response.body.phoneColumn).toBeNull();
      expect(response.body.warnings).toEqual([
        'Nenhuma coluna parece conter telefones; marque a coluna de telefone (isPhoneColumn) ao criar a base',
      ]);
    });

    it('reads the first worksheet of an XLSX, with numbers, dates and booleans as text', async () => {
      const company = await TestCompany.register(t.http);
      const file = await xlsx([
        ['Nome', 'WhatsApp', 'Nascimento', 'Ativo', 'Saldo'],
        ['Ana', 5511987654321, new Date(Date.UTC(1990, 4, 17)), true, 10.5],
        ['Bia', '(11) 98765-4322', new Date(Date.UTC(1985, 0, 2)), false, 0],
      ]);
      const response = await analyze(company, file, 'contatos.xlsx').expect(200);
      expect(response.body).toMatchObject({
        columns: ['Nome', 'WhatsApp', 'Nascimento', 'Ativo', 'Saldo'],
        rowCount: 2,
        fileType: 'XLSX',
        encoding: null,
        delimiter: null,
        phoneColumn: 'WhatsApp',
        sampleData: {
          WhatsApp: ['5511987654321', '(11) 98765-4322'],
          Nascimento: ['1990-05-17', '1985-01-02'],
          Ativo: ['true', 'false'],
          Saldo: ['10.5', '0'],
        },
      });
    });

    it('refuses a body that is not multipart, a form without the file, unknown parts, .xls and empty files', async () => {
      const company = await TestCompany.register(t.http);
      expect(
        expectErrorBody(await company.post('/api/user-databases/analyze', { file: 'x' }), 400),
      ).toContain('multipart/form-data');
      expect(
        expectErrorBody(
          await t.http.post('/api/user-databases/analyze').set(company.auth).field('outro', 'x'),
          400,
        ),
      ).toBe('{outro=campo desconhecido}');
      expect(
        expectErrorBody(
          await t.http.post('/api/user-databases/analyze').set(company.auth).field('file', 'texto'),
          400,
        ),
      ).toBe('{file=deve ser um arquivo}');
      const ole = Buffer.concat([
        Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
        Buffer.alloc(512),
      ]);
      expect(expectErrorBody(await analyze(company, ole, 'antigo.xls'), 400)).toContain(
        '.xls não é aceito',
      );
      expect(expectErrorBody(await analyze(company, Buffer.alloc(0)), 400)).toBe(
        'O arquivo está vazio',
      );
      expect(expectErrorBody(await analyze(company, Buffer.from('\n\n;;\n')), 400)).toBe(
        'O arquivo não tem linhas',
      );
    });

    it('answers 413 past 50 MB, after reading the whole upload', async () => {
      const company = await TestCompany.register(t.http);
      const big = Buffer.alloc(50 * 1024 * 1024 + 10, 'a');
      const message = expectErrorBody(
        await analyze(company, big),
        413,
        '/api/user-databases/analyze',
      );
      expect(message).toBe('Arquivo grande demais: o limite é 50 MB');
    });

    it('refuses a file of more than 1,000,000 rows', async () => {
      const company = await TestCompany.register(t.http);
      const file = Buffer.from('Telefone\n' + '1\n'.repeat(1_000_001));
      expect(expectErrorBody(await analyze(company, file), 400)).toBe(
        'O arquivo tem mais de 1000000 linhas',
      );
    });

    it('refuses a deflate bomb (a tiny archive inflating a thousand times) before parsing', async () => {
      const company = await TestCompany.register(t.http);
      const bomb = zip(xlsxEntries(hugeSheetXml(64 * 1024 * 1024)));
      expect(bomb.length).toBeLessThan(200 * 1024);
      const message = expectErrorBody(await analyze(company, bomb, 'bomba.xlsx'), 400);
      expect(message).toBe(
        'Arquivo XLSX recusado: a entrada xl/worksheets/sheet1.xml é compactada demais (possível bomba ZIP)',
      );
    });

    it('refuses an archive whose entries inflate to more than they declare', async () => {
      const company = await TestCompany.register(t.http);
      const liar = zip(xlsxEntries(hugeSheetXml(16 * 1024 * 1024), 1024));
      const message = expectErrorBody(await analyze(company, liar, 'mentira.xlsx'), 400);
      expect(message).toBe(
        'Arquivo XLSX recusado: a entrada xl/worksheets/sheet1.xml não descompacta para o tamanho declarado',
      );
    });

    it('refuses an archive with data hidden between its entries', async () => {
      const company = await TestCompany.register(t.http);
      const honest = zip(xlsxEntries(Buffer.from('<worksheet/>')));
      const hidden = zip([{ name: 'xl/worksheets/sheet2.xml', data: hugeSheetXml(1024) }]);
      const hiddenLocal = hidden.subarray(0, hidden.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])));
      // The hidden entry goes first: every central-directory offset then points past it.
      const shifted = Buffer.from(honest);
      const directoryStart = shifted.readUInt32LE(shifted.length - 6);
      for (let at = directoryStart; at < shifted.length - 22;) {
        shifted.writeUInt32LE(shifted.readUInt32LE(at + 42) + hiddenLocal.length, at + 42);
        at += 46 + shifted.readUInt16LE(at + 28);
      }
      shifted.writeUInt32LE(directoryStart + hiddenLocal.length, shifted.length - 6);
      const sneaky = Buffer.concat([hiddenLocal, shifted]);
      const message = expectErrorBody(await analyze(company, sneaky, 'escondido.xlsx'), 400);
      expect(message).toBe('Arquivo XLSX recusado: há dados escondidos entre as entradas do ZIP');
    });
  });

  describe('POST /api/user-databases', () => {
    it('creates an ACTIVE database with derived column names and types, skipping rows with a bad phone', async () => {
      const company = await TestCompany.register(t.http);
      const text = csv([
        ['Nome Completo', 'Telefone', 'Idade', 'Cliente desde', 'VIP', 'E-mail', 'ID'],
        ['João Ação', '(11) 98765-4321', '31', '17/05/2020', 'sim', 'joao@exemplo.com', 'A1'],
        ['Maria', '123', '40', '2020-01-01', 'não', 'maria@exemplo.com', 'A2'],
        ['Zé', '+55 21 99876-5432', 'trinta', 'ontem', 'talvez', 'sem-email', 'A3'],
      ]);
      const response = await createDatabase(t.http, company, Buffer.from(text), 'clientes.csv', {
        name: 'Clientes',
        description: 'Do CRM',
        columnMappings: [
          {
            originalName: 'Nome Completo',
            displayName: 'Nome',
            dataType: 'TEXT',
            isPhoneColumn: false,
          },
          { originalName: 'Telefone', dataType: 'PHONE', isPhoneColumn: true },
          { originalName: 'Idade', dataType: 'NUMBER' },
          { originalName: 'Cliente desde', dataType: 'DATE' },
          { originalName: 'VIP', dataType: 'BOOLEAN' },
          { originalName: 'E-mail', dataType: 'EMAIL' },
          { originalName: 'ID' },
        ],
      }).expect(201);
      expect(response.body).toMatchObject({
        name: 'Clientes',
        description: 'Do CRM',
        origin: 'UPLOAD',
        status: 'ACTIVE',
        rowCount: 2,
        skippedRows: 1,
        invalidValues: 4,
        configId: null,
        includeGroups: null,
        lastSyncedAt: null,
        lastSyncSummary: null,
      });
      expect(new Date(response.body.createdAt).toISOString()).toBe(response.body.createdAt);
      expect(response.body.columns).toEqual([
        {
          columnName: 'nome_completo',
          displayName: 'Nome',
          dataType: 'TEXT',
          isPhoneColumn: false,
          isNameColumn: true,
          position: 1,
        },
        {
          columnName: 'telefone',
          displayName: 'Telefone',
          dataType: 'PHONE',
          isPhoneColumn: true,
          isNameColumn: false,
          position: 2,
        },
        {
          columnName: 'idade',
          displayName: 'Idade',
          dataType: 'NUMBER',
          isPhoneColumn: false,
          isNameColumn: false,
          position: 3,
        },
        {
          columnName: 'cliente_desde',
          displayName: 'Cliente desde',
          dataType: 'DATE',
          isPhoneColumn: false,
          isNameColumn: false,
          position: 4,
        },
        {
          columnName: 'vip',
          displayName: 'VIP',
          dataType: 'BOOLEAN',
          isPhoneColumn: false,
          isNameColumn: false,
          position: 5,
        },
        {
          columnName: 'e_mail',
          displayName: 'E-mail',
          dataType: 'EMAIL',
          isPhoneColumn: false,
          isNameColumn: false,
          position: 6,
        },
        {
          columnName: 'id_2',
          displayName: 'ID',
          dataType: 'TEXT',
          isPhoneColumn: false,
          isNameColumn: false,
          position: 7,
        },
      ]);
      const records = await company
        .get(`/api/user-databases/${response.body.id}/records?sortDirection=asc`)
        .expect(200);
      expect(records.body.content.map((r: { values: unknown }) => r.values)).toEqual([
        {
          nome_completo: 'João Ação',
          telefone: '5511987654321',
          idade: 31,
          cliente_desde: '2020-05-17',
          vip: true,
          e_mail: 'joao@exemplo.com',
          id_2: 'A1',
        },
        {
          nome_completo: 'Zé',
          telefone: '5521998765432',
          idade: null,
          cliente_desde: null,
          vip: null,
          e_mail: null,
          id_2: 'A3',
        },
      ]);
    });

    it('accepts the config as a plain text part too', async () => {
      const company = await TestCompany.register(t.http);
      const response = await t.http
        .post('/api/user-databases')
        .set(company.auth)
        .field('config', JSON.stringify({ name: 'Texto', columnMappings: CONTACT_MAPPINGS }))
        .attach('file', contactsCsv(2), { filename: 'c.csv' })
        .expect(201);
      expect(response.body.rowCount).toBe(2);
    });

    it('creates from an XLSX, typing numeric phones, dates and booleans from the cells', async () => {
      const company = await TestCompany.register(t.http);
      const file = await xlsx([
        ['Nome', 'WhatsApp', 'Nascimento', 'Ativo'],
        ['Ana', 5511987654321, new Date(Date.UTC(1990, 4, 17)), true],
        ['Bia', 'inválido', new Date(Date.UTC(1985, 0, 2)), false],
      ]);
      const response = await createDatabase(t.http, company, file, 'contatos.xlsx', {
        name: 'Planilha',
        columnMappings: [
          { originalName: 'Nome' },
          { originalName: 'WhatsApp', isPhoneColumn: true },
          { originalName: 'Nascimento', dataType: 'DATE' },
          { originalName: 'Ativo', dataType: 'BOOLEAN' },
        ],
      }).expect(201);
      expect(response.body).toMatchObject({ rowCount: 1, skippedRows: 1 });
      const { rows } = await db().query(
        `SELECT values, phone FROM user_database_records WHERE database_id = $1`,
        [response.body.id],
      );
      expect(rows).toEqual([
        {
          values: {
            nome: 'Ana',
            whats_app: '5511987654321',
            nascimento: '1990-05-17',
            ativo: true,
          },
          phone: '5511987654321',
        },
      ]);
    });

    it('refuses bad configurations with 400 and creates nothing', async () => {
      const company = await TestCompany.register(t.http);
      const file = contactsCsv(3);
      const cases: Array<[unknown, string]> = [
        [undefined, '{config=é obrigatório (parte JSON do formulário)}'],
        ['{nome', '{config=deve ser um JSON válido}'],
        [{ columnMappings: CONTACT_MAPPINGS }, '{name=é obrigatório}'],
        [{ name: 'X', columnMappings: CONTACT_MAPPINGS, extra: 1 }, '{extra=campo desconhecido}'],
        [
          {
            name: 'X',
            columnMappings: [{ originalName: 'Telefone', isPhoneColumn: true, cor: 'azul' }],
          },
          '{columnMappings[0].cor=campo desconhecido}',
        ],
        [
          {
            name: 'X',
            columnMappings: [{ originalName: 'Telefone', isPhoneColumn: true, dataType: 'TEXTO' }],
          },
          '{columnMappings[0].dataType=deve ser um de: TEXT, NUMBER, DATE, BOOLEAN, PHONE, EMAIL}',
        ],
        [
          { name: 'X', columnMappings: [{ originalName: 'Nome' }] },
          '{columnMappings=deve ter exatamente uma coluna com isPhoneColumn verdadeiro (tem 0)}',
        ],
        [
          { name: 'X', columnMappings: [{ originalName: 'Fone', isPhoneColumn: true }] },
          '{columnMappings[0].originalName=a coluna "Fone" não está no arquivo}',
        ],
      ];
      for (const [config, expected] of cases) {
        let request = t.http
          .post('/api/user-databases')
          .set(company.auth)
          .attach('file', file, { filename: 'c.csv' });
        if (config !== undefined) {
          request = request.field(
            'config',
            typeof config === 'string' ? config : JSON.stringify(config),
          );
        }
        expect(expectErrorBody(await request, 400)).toBe(expected);
      }
      expect(
        expectErrorBody(
          await t.http
            .post('/api/user-databases')
            .set(company.auth)
            .field('config', JSON.stringify({ name: 'X', columnMappings: CONTACT_MAPPINGS })),
          400,
        ),
      ).toBe('{file=é obrigatório (CSV ou XLSX)}');
      expect(await databasesOf(company)).toBe(0);
      expect(await recordsOf(company)).toBe(0);
    });

    it('is atomic: a file that breaks after many batches leaves no database and no records', async () => {
      const company = await TestCompany.register(t.http);
      const broken = Buffer.concat([
        contactsCsv(12_000),
        Buffer.from('"Sem fim,11987654321,x@y.com,Rio\n'),
      ]);
      const message = expectErrorBody(
        await createDatabase(t.http, company, broken, 'quebrado.csv', {
          name: 'Quebrado',
          columnMappings: CONTACT_MAPPINGS,
        }),
        400,
      );
      expect(message).toBe('CSV inválido na linha 12002: aspas abertas e não fechadas');
      expect(await databasesOf(company)).toBe(0);
      expect(await recordsOf(company)).toBe(0);
    });

    it('refuses a creation past the plan limit (company.databaseLimit) with 400', async () => {
      const company = await TestCompany.register(t.http);
      await t.http
        .patch(`/api/admin/companies/${company.id}`)
        .set(ADMIN_HEADER)
        .send({ databaseLimit: 1 })
        .expect(200);
      await createDatabase(t.http, company, contactsCsv(1), 'a.csv', {
        name: 'A',
        columnMappings: CONTACT_MAPPINGS,
      }).expect(201);
      const message = expectErrorBody(
        await createDatabase(t.http, company, contactsCsv(1), 'b.csv', {
          name: 'B',
          columnMappings: CONTACT_MAPPINGS,
        }),
        400,
      );
      expect(message).toBe(
        'Limite de bases de dados do plano atingido (1); exclua uma base para criar outra',
      );
      expect(await databasesOf(company)).toBe(1);
      expect((await company.get('/api/user-databases/count').expect(200)).body).toEqual({
        userDatabases: 1,
        systemDatabases: 1,
        totalDatabases: 2,
        limit: 1,
        remaining: 0,
      });
    });

    it('imports a 100,000-row CSV; large databases get search and sort indexes in the background, dropped with the database', async () => {
      const company = await TestCompany.register(t.http);
      const response = await createDatabase(t.http, company, contactsCsv(100_000), 'grande.csv', {
        name: 'Grande',
        columnMappings: CONTACT_MAPPINGS,
      }).expect(201);
      const id = response.body.id as number;
      expect(response.body).toMatchObject({ rowCount: 100_000, skippedRows: 0, status: 'ACTIVE' });
      expect(await countRows('user_database_records', 'database_id = $1', [id])).toBe(100_000);
      await waitForIndex(`udr_search_${id}`, true);
      const page = await company
        .get(`/api/user-databases/${id}/records?search=PESSOA 9999&size=100`)
        .expect(200);
      expect(page.body.totalElements).toBe(11);
      expect(page.body.content[0].values.nome).toBe('Pessoa 99999');

      // The first sort by a column asks for its index (column 4: cidade); the answer does not wait for it.
      const sorted = await company
        .get(`/api/user-databases/${id}/records?sortBy=cidade&sortDirection=asc&size=2`)
        .expect(200);
      expect(sorted.body.content.map((r: any) => r.values.cidade)).toEqual([
        'Curitiba',
        'Curitiba',
      ]);
      await waitForIndex(`udr_sort_${id}_4`, true);
      // The index turns valid a moment before the worker records it as READY.
      const registry = async (): Promise<unknown[]> =>
        (
          await db().query(
            `SELECT name, state FROM user_database_indexes WHERE database_id = $1 ORDER BY name`,
            [id],
          )
        ).rows;
      await waitFor(async () => (await registry()).every((row: any) => row.state === 'READY'));
      expect(await registry()).toEqual([
        { name: `udr_search_${id}`, state: 'READY' },
        { name: `udr_sort_${id}_4`, state: 'READY' },
      ]);

      // A build whose worker died leaves an invalid index: the request's next holder rebuilds it.
      const search = `udr_search_${id}`;
      await db().query(
        `UPDATE pg_index SET indisvalid = false WHERE indexrelid = to_regclass($1)`,
        [search],
      );
      // While another live worker holds the build lock, the request is postponed, not rebuilt.
      const builder = await db().connect();
      try {
        await builder.query(`SELECT pg_advisory_lock(7346201, hashtext($1))`, [search]);
        await db().query(
          `UPDATE user_database_indexes SET state = 'PENDING', locked_until = NULL, attempts = 1 WHERE name = $1`,
          [search],
        );
        await db().query(`SELECT pg_notify('user_database_indexes', '')`);
        await waitFor(async () => {
          const { rows } = await db().query(
            `SELECT attempts, locked_until > now() AS leased FROM user_database_indexes WHERE name = $1`,
            [search],
          );
          return rows[0].leased === true && rows[0].attempts === 1;
        });
        expect(await indexValid(search)).toBe(false);
      } finally {
        await builder.query(`SELECT pg_advisory_unlock_all()`);
        builder.release();
      }
      await db().query(`UPDATE user_database_indexes SET locked_until = NULL WHERE name = $1`, [
        search,
      ]);
      await db().query(`SELECT pg_notify('user_database_indexes', '')`);
      await waitForIndex(search, true);
      // The index turns valid a moment before the worker records it as READY.
      await waitFor(
        async () =>
          (await db().query(`SELECT state FROM user_database_indexes WHERE name = $1`, [search]))
            .rows[0].state === 'READY',
      );

      await company.delete(`/api/user-databases/${id}`).expect(204);
      await waitForIndex(`udr_search_${id}`, false);
      await waitForIndex(`udr_sort_${id}_4`, false);
      // The worker forgets a dropped index's request right after dropping it.
      await waitFor(
        async () => (await countRows('user_database_indexes', 'database_id = $1', [id])) === 0,
      );
      expect(await countRows('user_database_records', 'database_id = $1', [id])).toBe(0);
    }, 240_000);
  });
});
