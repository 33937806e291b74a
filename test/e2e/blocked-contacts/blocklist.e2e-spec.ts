import { BlockListService } from '../../../src/modules/blocked-contacts/application/block-list.service';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany } from '../../support/test-app';

/** Valid Brazilian mobile numbers, normalized, distinct for each n below 10,000,000. */
function phone(n: number): string {
  return `55119${80000000 + n}`;
}

function pathOf(company: TestCompany, suffix = ''): string {
  return `/api/companies/${company.id}/blocked-contacts${suffix}`;
}

interface BlockedRow {
  id: string;
  phone_number: string;
  reason: string | null;
  blocked_by: string;
  blocked_at: Date;
  is_active: boolean;
  unblocked_at: Date | null;
}

async function rowsOf(company: TestCompany): Promise<BlockedRow[]> {
  const { rows } = await db().query<BlockedRow>(
    `SELECT id, phone_number, reason, blocked_by, blocked_at, is_active, unblocked_at
       FROM blocked_contacts WHERE company_id = $1 ORDER BY phone_number`,
    [company.id],
  );
  return rows;
}

async function rowOf(company: TestCompany, phoneNumber: string): Promise<BlockedRow | undefined> {
  return (await rowsOf(company)).find((row) => row.phone_number === phoneNumber);
}

function countOf(company: TestCompany): Promise<number> {
  return countRows('blocked_contacts', 'company_id = $1', [company.id]);
}

/** The same number, 5511987654321, in every format the service reads. */
const FORMATS_OF_ONE_NUMBER = [
  '5511987654321',
  '+5511987654321',
  '+55 11 98765-4321',
  '+55 (11) 98765-4321',
  '(11) 98765-4321',
  '11987654321',
  '11 98765 4321',
  '11.98765.4321',
  '011987654321',
  '0055 11 98765 4321',
];

describe('block list', () => {
  const { t } = useE2eFixture();

  async function block(company: TestCompany, phoneNumber: string, reason?: string): Promise<void> {
    await company.post(pathOf(company), { phoneNumber, reason }).expect(201);
  }

  async function unblock(company: TestCompany, phoneNumber: string): Promise<void> {
    await company.delete(pathOf(company, `/${encodeURIComponent(phoneNumber)}`)).expect(204);
  }

  describe('POST /api/companies/{companyId}/blocked-contacts', () => {
    let company: TestCompany;
    beforeAll(async () => {
      company = await TestCompany.register(t.http);
    });

    it('blocks a number, stores it normalized and answers 201 with the blocked contact', async () => {
      const response = await company
        .post(pathOf(company), { phoneNumber: '+55 (21) 99999-8888', reason: 'Pediu para sair' })
        .expect(201);
      const row = await rowOf(company, '5521999998888');
      expect(row).toBeDefined();
      expect(response.body).toEqual({
        id: Number(row!.id),
        companyId: company.id,
        phoneNumber: '5521999998888',
        reason: 'Pediu para sair',
        blockedBy: 'MANUAL',
        blockedAt: row!.blocked_at.toISOString(),
        isActive: true,
      });
      expect(response.body.blockedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(row).toMatchObject({ blocked_by: 'MANUAL', is_active: true, unblocked_at: null });
    });

    it('keeps no reason as null, including a blank one', async () => {
      const without = await company.post(pathOf(company), { phoneNumber: phone(1) }).expect(201);
      const blank = await company
        .post(pathOf(company), { phoneNumber: phone(2), reason: '   ' })
        .expect(201);
      expect(without.body.reason).toBeNull();
      expect(blank.body.reason).toBeNull();
      expect((await rowOf(company, phone(1)))!.reason).toBeNull();
      expect((await rowOf(company, phone(2)))!.reason).toBeNull();
    });

    it('reads every accepted format as the same number: one row, and 400 for each repeat', async () => {
      const other = await TestCompany.register(t.http);
      const [first, ...rest] = FORMATS_OF_ONE_NUMBER;
      await block(other, first);
      for (const format of rest) {
        const response = await other.post(pathOf(other), { phoneNumber: format });
        expect(expectErrorBody(response, 400, pathOf(other))).toBe('Este número já está bloqueado');
      }
      expect(await rowsOf(other)).toEqual([
        expect.objectContaining({ phone_number: '5511987654321', is_active: true }),
      ]);
    });

    it('blocks an unblocked number again on the same row, with the new reason and time', async () => {
      await block(company, phone(3), 'primeiro');
      const before = (await rowOf(company, phone(3)))!;
      await unblock(company, phone(3));
      const response = await company
        .post(pathOf(company), { phoneNumber: phone(3), reason: 'segundo' })
        .expect(201);
      const after = (await rowOf(company, phone(3)))!;
      expect(after).toMatchObject({
        id: before.id,
        reason: 'segundo',
        blocked_by: 'MANUAL',
        is_active: true,
        unblocked_at: null,
      });
      expect(after.blocked_at.getTime()).toBeGreaterThanOrEqual(before.blocked_at.getTime());
      expect(response.body).toMatchObject({
        id: Number(before.id),
        isActive: true,
        reason: 'segundo',
      });
    });

    it.each([
      ['no phoneNumber', {}, 'phoneNumber', 'é obrigatório'],
      ['a null phoneNumber', { phoneNumber: null }, 'phoneNumber', 'é obrigatório'],
      ['an empty phoneNumber', { phoneNumber: '' }, 'phoneNumber', 'é obrigatório'],
      ['a numeric phoneNumber', { phoneNumber: 5511987654321 }, 'phoneNumber', 'é obrigatório'],
      ['a too short number', { phoneNumber: '123' }, 'phoneNumber', 'número de telefone inválido'],
      ['letters', { phoneNumber: 'abc-defg-hijk' }, 'phoneNumber', 'número de telefone inválido'],
      [
        'a number without a valid area code',
        { phoneNumber: '98765-4321' },
        'phoneNumber',
        'número de telefone inválido',
      ],
      [
        'a phoneNumber over 50 characters',
        { phoneNumber: '1'.repeat(51) },
        'phoneNumber',
        'número de telefone inválido',
      ],
      [
        'a reason that is not text',
        { phoneNumber: phone(9), reason: 7 },
        'reason',
        'deve ser um texto',
      ],
      [
        'a reason over 500 characters',
        { phoneNumber: phone(9), reason: 'r'.repeat(501) },
        'reason',
        'deve ter no máximo 500 caracteres',
      ],
      [
        'an unknown field',
        { phoneNumber: phone(9), blockedBy: 'OPT_OUT' },
        'blockedBy',
        'campo desconhecido',
      ],
    ])('refuses %s with 400 and writes nothing', async (_label, body, field, text) => {
      const before = await countOf(company);
      const response = await company.post(pathOf(company), body);
      expect(expectErrorBody(response, 400, pathOf(company))).toBe(`{${field}=${text}}`);
      expect(await countOf(company)).toBe(before);
    });

    it('accepts a reason of exactly 500 characters', async () => {
      await company
        .post(pathOf(company), { phoneNumber: phone(10), reason: 'r'.repeat(500) })
        .expect(201);
      expect((await rowOf(company, phone(10)))!.reason).toHaveLength(500);
    });
  });

  describe('POST /api/companies/{companyId}/blocked-contacts/import', () => {
    it('counts new, already blocked, invalid, repeated and re-activated numbers', async () => {
      const company = await TestCompany.register(t.http);
      await block(company, phone(1), 'manual');
      await block(company, phone(2));
      await unblock(company, phone(2));
      const unblockedId = (await rowOf(company, phone(2)))!.id;

      const response = await company
        .post(pathOf(company, '/import'), {
          phoneNumbers: [
            phone(3), // new
            '+55 (11) 98000-0003', // phone(3) again, written differently
            phone(1), // already blocked
            phone(2), // unblocked before: re-activated
            'abc',
            'abc',
            '123',
            phone(4), // new
            phone(4), // repeated in the same format
          ],
          reason: 'lista do cliente',
        })
        .expect(200);

      expect(response.body).toEqual({
        success: true,
        totalProvided: 9,
        successfullyBlocked: 3,
        alreadyBlocked: 3,
        failed: 3,
        failedNumbers: { abc: 'número de telefone inválido', '123': 'número de telefone inválido' },
      });
      const rows = await rowsOf(company);
      expect(
        rows.map((row) => [row.phone_number, row.blocked_by, row.is_active, row.reason]),
      ).toEqual([
        [phone(1), 'MANUAL', true, 'manual'],
        [phone(2), 'IMPORT', true, 'lista do cliente'],
        [phone(3), 'IMPORT', true, 'lista do cliente'],
        [phone(4), 'IMPORT', true, 'lista do cliente'],
      ]);
      expect(rows[1]).toMatchObject({ id: unblockedId, unblocked_at: null });
    });

    it('reports every number as already blocked when the same import runs twice', async () => {
      const company = await TestCompany.register(t.http);
      const phoneNumbers = [phone(1), phone(2), phone(3)];
      await company.post(pathOf(company, '/import'), { phoneNumbers }).expect(200);
      const second = await company.post(pathOf(company, '/import'), { phoneNumbers }).expect(200);
      expect(second.body).toEqual({
        success: true,
        totalProvided: 3,
        successfullyBlocked: 0,
        alreadyBlocked: 3,
        failed: 0,
        failedNumbers: {},
      });
      expect((await rowsOf(company)).map((row) => row.reason)).toEqual([null, null, null]);
    });

    it('blocks 1000 numbers in one request', async () => {
      const company = await TestCompany.register(t.http);
      const phoneNumbers = Array.from({ length: 1000 }, (_v, i) => phone(i));
      const response = await company.post(pathOf(company, '/import'), { phoneNumbers }).expect(200);
      expect(response.body).toMatchObject({
        success: true,
        totalProvided: 1000,
        successfullyBlocked: 1000,
      });
      expect(
        await countRows('blocked_contacts', 'company_id = $1 AND is_active', [company.id]),
      ).toBe(1000);
    });

    it('answers success false with an error, and writes nothing, when no number is valid', async () => {
      const company = await TestCompany.register(t.http);
      const response = await company
        .post(pathOf(company, '/import'), { phoneNumbers: ['abc', '', '12'] })
        .expect(200);
      expect(response.body).toEqual({
        success: false,
        error: 'Nenhum número de telefone válido foi informado',
        totalProvided: 3,
        successfullyBlocked: 0,
        alreadyBlocked: 0,
        failed: 3,
        failedNumbers: {
          abc: 'número de telefone inválido',
          '': 'número de telefone inválido',
          '12': 'número de telefone inválido',
        },
      });
      expect(await countOf(company)).toBe(0);
    });

    it('echoes an input named like an object property as a plain key', async () => {
      const company = await TestCompany.register(t.http);
      const response = await company
        .post(pathOf(company, '/import'), { phoneNumbers: ['__proto__', phone(1)] })
        .expect(200);
      expect(Object.keys(response.body.failedNumbers)).toEqual(['__proto__']);
    });

    describe('bad input', () => {
      let company: TestCompany;
      beforeAll(async () => {
        company = await TestCompany.register(t.http);
      });

      it.each([
        [
          'no phoneNumbers',
          {},
          'phoneNumbers',
          'é obrigatório e deve ser uma lista de números de telefone',
        ],
        [
          'phoneNumbers that is not a list',
          { phoneNumbers: phone(1) },
          'phoneNumbers',
          'é obrigatório e deve ser uma lista de números de telefone',
        ],
        ['an empty list', { phoneNumbers: [] }, 'phoneNumbers', 'deve ter ao menos 1 número'],
        [
          'more than 1000 numbers',
          { phoneNumbers: Array.from({ length: 1001 }, (_v, i) => phone(i)) },
          'phoneNumbers',
          'deve ter no máximo 1000 números',
        ],
        [
          'a number that is not text',
          { phoneNumbers: [phone(1), 5511980000002] },
          'phoneNumbers',
          'cada número deve ser um texto',
        ],
        [
          'a null number',
          { phoneNumbers: [phone(1), null] },
          'phoneNumbers',
          'cada número deve ser um texto',
        ],
        [
          'a number over 50 characters',
          { phoneNumbers: [phone(1), '1'.repeat(51)] },
          'phoneNumbers',
          'cada número deve ter no máximo 50 caracteres',
        ],
        [
          'a reason over 500 characters',
          { phoneNumbers: [phone(1)], reason: 'r'.repeat(501) },
          'reason',
          'deve ter no máximo 500 caracteres',
        ],
        [
          'a reason that is not text',
          { phoneNumbers: [phone(1)], reason: ['x'] },
          'reason',
          'deve ser um texto',
        ],
        [
          'an unknown field',
          { phoneNumbers: [phone(1)], blockedBy: 'MANUAL' },
          'blockedBy',
          'campo desconhecido',
        ],
      ])('refuses %s with 400 and writes nothing', async (_label, body, field, text) => {
        const response = await company.post(pathOf(company, '/import'), body);
        expect(expectErrorBody(response, 400, pathOf(company, '/import'))).toBe(
          `{${field}=${text}}`,
        );
        expect(await countOf(company)).toBe(0);
      });

      it('refuses a body that is a list instead of an object', async () => {
        const response = await company.post(pathOf(company, '/import'), [phone(1)]);
        expectErrorBody(response, 400);
        expect(await countOf(company)).toBe(0);
      });
    });
  });

  describe('POST /api/companies/{companyId}/blocked-contacts/check', () => {
    let company: TestCompany;
    beforeAll(async () => {
      company = await TestCompany.register(t.http);
      await block(company, '5511987654321');
      await block(company, phone(1));
      await unblock(company, phone(1));
    });

    it('maps each number, as given, to whether it is actively blocked', async () => {
      const checked = [...FORMATS_OF_ONE_NUMBER, phone(1), '21999998888', 'abc', ''];
      const response = await company.post(pathOf(company, '/check'), checked).expect(200);
      expect(response.body).toEqual({
        ...Object.fromEntries(FORMATS_OF_ONE_NUMBER.map((format) => [format, true])),
        [phone(1)]: false,
        '21999998888': false,
        abc: false,
        '': false,
      });
    });

    it('answers an empty list with an empty object', async () => {
      const response = await company.post(pathOf(company, '/check'), []).expect(200);
      expect(response.body).toEqual({});
    });

    it('checks 1000 numbers in one request', async () => {
      const checked = ['5511987654321', ...Array.from({ length: 999 }, (_v, i) => phone(100 + i))];
      const response = await company.post(pathOf(company, '/check'), checked).expect(200);
      expect(Object.keys(response.body)).toHaveLength(1000);
      expect(Object.values(response.body).filter((blocked) => blocked === true)).toHaveLength(1);
    });

    it.each([
      [
        'an object',
        { phoneNumbers: ['5511987654321'] },
        '{body=deve ser uma lista JSON de números de telefone}',
      ],
      ['a string', '"5511987654321"', '{body=deve ser uma lista JSON de números de telefone}'],
      ['null', 'null', '{body=deve ser uma lista JSON de números de telefone}'],
      [
        'more than 1000 numbers',
        Array.from({ length: 1001 }, (_v, i) => phone(i)),
        '{body=deve ter no máximo 1000 números}',
      ],
      [
        'items that are not text',
        ['5511987654321', 5511987654321, null],
        '{[1]=deve ser um texto, [2]=deve ser um texto}',
      ],
      ['an item over 50 characters', ['1'.repeat(51)], '{[0]=deve ter no máximo 50 caracteres}'],
    ])('refuses %s with 400', async (_label, body, message) => {
      const before = await countRows('blocked_contacts');
      const request = company.post(pathOf(company, '/check'));
      const response =
        typeof body === 'string'
          ? await request.set('Content-Type', 'application/json').send(body)
          : await request.send(body);
      expect(expectErrorBody(response, 400, pathOf(company, '/check'))).toBe(message);
      expect(await countRows('blocked_contacts')).toBe(before);
    });

    it('names at most ten bad items', async () => {
      const response = await company.post(
        pathOf(company, '/check'),
        Array.from({ length: 20 }, () => 1),
      );
      const message = expectErrorBody(response, 400);
      expect(message.match(/=deve ser um texto/g)).toHaveLength(10);
    });
  });

  describe('GET /api/companies/{companyId}/blocked-contacts/stats', () => {
    it('counts active blocks and follows the time of the latest block or unblock', async () => {
      const company = await TestCompany.register(t.http);
      const empty = await company.get(pathOf(company, '/stats')).expect(200);
      expect(empty.body).toEqual({ totalBlocked: 0, lastUpdated: null });

      await block(company, phone(1));
      await company
        .post(pathOf(company, '/import'), { phoneNumbers: [phone(2), phone(3)] })
        .expect(200);
      const afterBlocks = await company.get(pathOf(company, '/stats')).expect(200);
      const imported = (await rowOf(company, phone(3)))!;
      expect(afterBlocks.body).toEqual({
        totalBlocked: 3,
        lastUpdated: imported.blocked_at.toISOString(),
      });

      await unblock(company, phone(1));
      const afterUnblock = await company.get(pathOf(company, '/stats')).expect(200);
      const unblocked = (await rowOf(company, phone(1)))!;
      expect(afterUnblock.body).toEqual({
        totalBlocked: 2,
        lastUpdated: unblocked.unblocked_at!.toISOString(),
      });
      expect(new Date(afterUnblock.body.lastUpdated).getTime()).toBeGreaterThanOrEqual(
        new Date(afterBlocks.body.lastUpdated).getTime(),
      );
    });
  });

  describe('GET /api/companies/{companyId}/blocked-contacts', () => {
    let company: TestCompany;
    const newest = '+55 21 99999-8888';

    beforeAll(async () => {
      company = await TestCompany.register(t.http);
      await company
        .post(pathOf(company, '/import'), {
          phoneNumbers: Array.from({ length: 27 }, (_v, i) => phone(i)),
        })
        .expect(200);
      await block(company, phone(27));
      await unblock(company, phone(27));
      await block(company, newest, 'mais recente');
    });

    it('pages the active blocks, newest first, with the page fields', async () => {
      const first = await company.get(`${pathOf(company)}?page=0&size=25`).expect(200);
      expect(first.body).toMatchObject({ totalElements: 28, totalPages: 2, size: 25, number: 0 });
      expect(first.body.content).toHaveLength(25);
      expect(first.body.content[0]).toEqual({
        id: expect.any(Number),
        companyId: company.id,
        phoneNumber: '5521999998888',
        reason: 'mais recente',
        blockedBy: 'MANUAL',
        blockedAt: expect.stringMatching(/Z$/),
        isActive: true,
      });

      const second = await company.get(`${pathOf(company)}?page=1&size=25`).expect(200);
      expect(second.body).toMatchObject({ totalElements: 28, totalPages: 2, size: 25, number: 1 });
      expect(second.body.content).toHaveLength(3);

      const seen = [...first.body.content, ...second.body.content].map(
        (contact: { phoneNumber: string }) => contact.phoneNumber,
      );
      expect(new Set(seen).size).toBe(28);
      expect(seen).not.toContain(phone(27));
      const times = [...first.body.content, ...second.body.content].map(
        (c: { blockedAt: string }) => Date.parse(c.blockedAt),
      );
      expect(times).toEqual([...times].sort((a, b) => b - a));
    });

    it('uses page 0 and size 25 by default', async () => {
      const response = await company.get(pathOf(company)).expect(200);
      expect(response.body).toMatchObject({
        totalElements: 28,
        totalPages: 2,
        size: 25,
        number: 0,
      });
      expect(response.body.content).toHaveLength(25);
    });

    it('answers an empty page past the end with the same totals', async () => {
      const response = await company.get(`${pathOf(company)}?page=5&size=10`).expect(200);
      expect(response.body).toEqual({
        content: [],
        totalElements: 28,
        totalPages: 3,
        size: 10,
        number: 5,
      });
    });

    it('allows a size of 100', async () => {
      const response = await company.get(`${pathOf(company)}?size=100`).expect(200);
      expect(response.body).toMatchObject({ totalElements: 28, totalPages: 1, size: 100 });
      expect(response.body.content).toHaveLength(28);
    });

    it('searches by any part of the digits, formatted or not', async () => {
      const byDigits = await company.get(`${pathOf(company)}?search=99998888`).expect(200);
      expect(byDigits.body).toMatchObject({ totalElements: 1, totalPages: 1 });
      expect(byDigits.body.content[0].phoneNumber).toBe('5521999998888');

      const formatted = await company
        .get(`${pathOf(company)}?search=${encodeURIComponent('(21) 99999-8')}`)
        .expect(200);
      expect(formatted.body.content.map((c: { phoneNumber: string }) => c.phoneNumber)).toEqual([
        '5521999998888',
      ]);

      // phone(10) .. phone(19) are 551198000001x; phone(1), 5511980000001, does not match.
      const several = await company.get(`${pathOf(company)}?search=8000001&size=5`).expect(200);
      expect(several.body).toMatchObject({ totalElements: 10, totalPages: 2, size: 5 });
      expect(several.body.content).toHaveLength(5);

      const none = await company.get(`${pathOf(company)}?search=123456789`).expect(200);
      expect(none.body).toEqual({
        content: [],
        totalElements: 0,
        totalPages: 0,
        size: 25,
        number: 0,
      });
    });

    it('does not find an unblocked number by search', async () => {
      const response = await company.get(`${pathOf(company)}?search=${phone(27)}`).expect(200);
      expect(response.body.totalElements).toBe(0);
    });

    it.each([
      ['page=abc', 'page', 'deve ser um número inteiro'],
      ['page=-1', 'page', 'não pode ser negativo'],
      ['page=1.5', 'page', 'deve ser um número inteiro'],
      ['page=', 'page', 'deve ser um número inteiro'],
      ['page=1&page=2', 'page', 'deve ser um número inteiro'],
      ['size=0', 'size', 'deve ser no mínimo 1'],
      ['size=-5', 'size', 'deve ser no mínimo 1'],
      ['size=101', 'size', 'deve ser no máximo 100'],
      ['size=ten', 'size', 'deve ser um número inteiro'],
      ['search=abc', 'search', 'deve conter apenas dígitos de telefone'],
      [`search=${'1'.repeat(51)}`, 'search', 'deve ter no máximo 50 caracteres'],
      ['sort=phoneNumber', 'sort', 'campo desconhecido'],
    ])('refuses %s with 400 naming the field', async (query, field, text) => {
      const response = await company.get(`${pathOf(company)}?${query}`);
      expect(expectErrorBody(response, 400, pathOf(company))).toBe(`{${field}=${text}}`);
    });
  });

  describe('DELETE /api/companies/{companyId}/blocked-contacts/{phoneNumber}', () => {
    let company: TestCompany;
    beforeAll(async () => {
      company = await TestCompany.register(t.http);
    });

    it('unblocks a number written in another format and keeps the row, inactive', async () => {
      await block(company, '5511987654321', 'motivo');
      const before = (await rowOf(company, '5511987654321'))!;
      await company
        .delete(pathOf(company, `/${encodeURIComponent('+55 (11) 98765-4321')}`))
        .expect(204);

      const after = (await rowOf(company, '5511987654321'))!;
      expect(after).toMatchObject({
        id: before.id,
        is_active: false,
        reason: 'motivo',
        blocked_by: 'MANUAL',
      });
      expect(after.unblocked_at).toBeInstanceOf(Date);
      expect(after.unblocked_at!.getTime()).toBeGreaterThanOrEqual(before.blocked_at.getTime());

      const listed = await company.get(pathOf(company)).expect(200);
      expect(listed.body.totalElements).toBe(0);
      const checked = await company.post(pathOf(company, '/check'), ['5511987654321']).expect(200);
      expect(checked.body).toEqual({ '5511987654321': false });
    });

    it('answers 404 for a number that is not blocked any more, and leaves the row alone', async () => {
      await block(company, phone(1));
      await unblock(company, phone(1));
      const before = (await rowOf(company, phone(1)))!;
      const response = await company.delete(pathOf(company, `/${phone(1)}`));
      expect(expectErrorBody(response, 404, pathOf(company, `/${phone(1)}`))).toBe(
        'Este número não está bloqueado',
      );
      expect(await rowOf(company, phone(1))).toEqual(before);
    });

    it('answers 404 for a number never blocked', async () => {
      const before = await countOf(company);
      const response = await company.delete(pathOf(company, `/${phone(2)}`));
      expectErrorBody(response, 404);
      expect(await countOf(company)).toBe(before);
    });

    it('answers 400 for something that is not a phone number', async () => {
      await block(company, phone(3));
      const response = await company.delete(pathOf(company, '/abc'));
      expect(expectErrorBody(response, 400)).toBe('{phoneNumber=número de telefone inválido}');
      expect((await rowOf(company, phone(3)))!.is_active).toBe(true);
    });

    it('lets a number unblocked by import be imported again', async () => {
      await company.post(pathOf(company, '/import'), { phoneNumbers: [phone(4)] }).expect(200);
      await unblock(company, `+${phone(4)}`);
      const again = await company
        .post(pathOf(company, '/import'), { phoneNumbers: [phone(4)] })
        .expect(200);
      expect(again.body).toMatchObject({ successfullyBlocked: 1, alreadyBlocked: 0 });
      expect(await rowOf(company, phone(4))).toMatchObject({ is_active: true, unblocked_at: null });
    });
  });

  describe('tenant isolation', () => {
    let owner: TestCompany;
    let intruder: TestCompany;
    beforeAll(async () => {
      owner = await TestCompany.register(t.http);
      intruder = await TestCompany.register(t.http);
      await block(owner, '5511987654321', 'do dono');
    });

    it.each([
      ['POST', '', { phoneNumber: phone(1) }],
      ['POST', '/import', { phoneNumbers: [phone(1)] }],
      ['POST', '/check', ['5511987654321']],
      ['GET', '/stats', undefined],
      ['GET', '', undefined],
      ['GET', '?search=98765', undefined],
      ['DELETE', '/5511987654321', undefined],
    ])(
      "refuses another company's token on %s %s with 403 and changes nothing",
      async (method, suffix, body) => {
        const path = pathOf(owner, suffix);
        const response =
          method === 'POST'
            ? await intruder.post(path, body)
            : method === 'GET'
              ? await intruder.get(path)
              : await intruder.delete(path);
        expect(expectErrorBody(response, 403, path.split('?')[0])).toBe(
          'Sem permissão para acessar dados de outra empresa',
        );
        expect(await rowsOf(owner)).toEqual([
          expect.objectContaining({
            phone_number: '5511987654321',
            is_active: true,
            reason: 'do dono',
          }),
        ]);
        expect(await countOf(intruder)).toBe(0);
      },
    );

    it('refuses a request without a token with 401', async () => {
      const response = await t.http.get(pathOf(owner));
      expectErrorBody(response, 401);
    });

    it("never shows or touches another company's blocked numbers", async () => {
      const list = await intruder.get(pathOf(intruder)).expect(200);
      expect(list.body.totalElements).toBe(0);
      const search = await intruder.get(`${pathOf(intruder)}?search=98765`).expect(200);
      expect(search.body.totalElements).toBe(0);
      const stats = await intruder.get(pathOf(intruder, '/stats')).expect(200);
      expect(stats.body).toEqual({ totalBlocked: 0, lastUpdated: null });
      const check = await intruder.post(pathOf(intruder, '/check'), ['5511987654321']).expect(200);
      expect(check.body).toEqual({ '5511987654321': false });
      const remove = await intruder.delete(pathOf(intruder, '/5511987654321'));
      expectErrorBody(remove, 404);

      await block(intruder, '5511987654321', 'do outro');
      await unblock(intruder, '5511987654321');
      expect(await rowOf(owner, '5511987654321')).toMatchObject({
        is_active: true,
        reason: 'do dono',
      });
      const ownerList = await owner.get(pathOf(owner)).expect(200);
      expect(ownerList.body.content.map((c: { companyId: number }) => c.companyId)).toEqual([
        owner.id,
      ]);
    });
  });

  describe('BlockListService.activeBlockedAmong', () => {
    it("returns the given stored numbers that the company actively blocks, and no other company's", async () => {
      const company = await TestCompany.register(t.http);
      const other = await TestCompany.register(t.http);
      await company
        .post(pathOf(company, '/import'), { phoneNumbers: [phone(1), phone(2), phone(3)] })
        .expect(200);
      await unblock(company, phone(2));
      await block(other, phone(4));

      const service = t.app.get(BlockListService);
      const blocked = await service.activeBlockedAmong(company.id, [
        phone(1),
        phone(2),
        phone(3),
        phone(4),
        phone(5),
      ]);
      expect([...blocked].sort()).toEqual([phone(1), phone(3)]);
      expect(await service.activeBlockedAmong(company.id, [])).toEqual(new Set());
    });
  });
});
