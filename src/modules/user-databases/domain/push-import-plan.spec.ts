import { defineColumns } from './column';
import { emptyTally, planPushColumns, pushRecords, type PushImportInput } from './push-import-plan';

/** The plan as the import makes it: the columns, then every record, counting as it goes. */
function planPushImport(input: PushImportInput) {
  const columns = planPushColumns(input);
  const tally = emptyTally(input.rows.length);
  const records = [...pushRecords(input, columns, tally)];
  return { columns: columns.columns, addedColumns: columns.addedColumns, records, ...tally };
}

describe('planPushImport', () => {
  it('builds columns from the keys, normalizes phones, drops repeats and reports invalid rows', () => {
    const plan = planPushImport({
      kind: 'CONTACTS',
      dedupe: true,
      defaultCountryCode: 55,
      rows: [
        { phoneNumber: '(11) 98765-4321', name: 'Maria', cidade: 'São Paulo' },
        { phoneNumber: '+55 11 98765-4321', name: 'Maria de novo' },
        { phoneNumber: '123', name: 'Inválido' },
        { name: 'Sem telefone' },
        'não é objeto',
        { phoneNumber: '11987650002', cidade: { nested: true } },
        { phoneNumber: '11987650003' },
      ],
    });
    expect(
      plan.columns.map((c) => [c.columnName, c.dataType, c.isPhoneColumn, c.isNameColumn]),
    ).toEqual([
      ['phone_number', 'PHONE', true, false],
      ['name', 'TEXT', false, true],
      ['cidade', 'TEXT', false, false],
    ]);
    expect(plan.records.map((r) => r.phone)).toEqual(['5511987654321', '5511987650003']);
    expect(plan.records[0].values).toEqual({
      phone_number: '5511987654321',
      name: 'Maria',
      cidade: 'São Paulo',
    });
    expect(plan).toMatchObject({ totalRows: 7, duplicatesRemoved: 1, invalidRows: 4 });
    expect(plan.rowErrors).toEqual([
      { row: 2, reason: 'phoneNumber: número de telefone inválido ("123")' },
      { row: 3, reason: 'phoneNumber é obrigatório' },
      { row: 4, reason: 'a linha deve ser um objeto JSON' },
      { row: 5, reason: 'cidade: deve ser um texto' },
    ]);
  });

  it('keeps repeats without dedupe', () => {
    const plan = planPushImport({
      kind: 'CONTACTS',
      dedupe: false,
      defaultCountryCode: 55,
      rows: [{ phoneNumber: '11987654321' }, { phoneNumber: '11987654321' }],
    });
    expect(plan.records).toHaveLength(2);
  });

  it('takes the best-ranked phone key of generic rows', () => {
    const plan = planPushImport({
      kind: 'GENERIC',
      dedupe: true,
      defaultCountryCode: 55,
      rows: [{ numero: '42', Telefone: '11987654321', nome: 'Ana' }],
    });
    expect(plan.columns.find((c) => c.isPhoneColumn)?.columnName).toBe('telefone');
    expect(plan.records[0].values).toEqual({
      numero: '42',
      telefone: '5511987654321',
      nome: 'Ana',
    });
  });

  it('refuses generic rows without a phone key', () => {
    expect(() =>
      planPushImport({
        kind: 'GENERIC',
        dedupe: true,
        defaultCountryCode: 55,
        rows: [{ nome: 'Ana' }],
      }),
    ).toThrow('Nenhuma coluna de telefone');
  });

  it('maps appended keys onto existing columns, the phone key onto the phone column, and adds new ones', () => {
    const existing = defineColumns([
      { originalName: 'Celular', dataType: 'PHONE', isPhoneColumn: true },
      { originalName: 'Nome', dataType: 'TEXT', isPhoneColumn: false },
      { originalName: 'Idade', dataType: 'NUMBER', isPhoneColumn: false },
    ]);
    const plan = planPushImport({
      kind: 'CONTACTS',
      dedupe: true,
      defaultCountryCode: 55,
      existingColumns: existing,
      rows: [
        { phoneNumber: '11987654321', Nome: 'Ana', idade: '31', plano: 'ouro' },
        { phoneNumber: '11987654322', idade: 'trinta' },
      ],
    });
    expect(plan.addedColumns.map((c) => [c.columnName, c.position])).toEqual([['plano', 4]]);
    expect(plan.records[0].values).toEqual({
      celular: '5511987654321',
      nome: 'Ana',
      idade: 31,
      plano: 'ouro',
    });
    expect(plan.rowErrors).toEqual([{ row: 1, reason: 'idade: deve ser um número' }]);
  });
});
