import { DomainError } from '../../../../common/errors/domain-error';
import { emptyTally, planPushColumns, pushRecords } from '../../domain/push-import-plan';
import { RECORD_BATCH_SIZE, serializeRecord } from '../record-batch-format';
import { ThreadPushImportPlanner } from './thread-push-import-planner';

const rows = Array.from({ length: 2 * RECORD_BATCH_SIZE + 7 }, (_v, i) => ({
  telefone: `+55 21 9${String(i % 11_000).padStart(8, '0')}`,
  nome: `Contato ${i}`,
  ...(i === 3 ? { telefone: '123' } : {}),
}));

describe('ThreadPushImportPlanner', () => {
  const planner = new ThreadPushImportPlanner();
  afterAll(() => planner.onApplicationShutdown());

  it('builds on a worker thread the same records, in batches, and tally as the plan in this thread', async () => {
    const input = { kind: 'GENERIC' as const, dedupe: true, defaultCountryCode: 55 };
    const planned = await planner.plan({ ...input, rowsJson: JSON.stringify(rows) });
    const batches: string[] = [];
    for await (const batch of planned.batches) {
      batches.push(batch);
    }

    // The same rows planned on this thread, as the import did before it had a planner thread.
    const expectedColumns = planPushColumns({ ...input, rows });
    const expectedTally = emptyTally(rows.length);
    const expectedRecords = [...pushRecords({ ...input, rows }, expectedColumns, expectedTally)];
    const expected = {
      columns: expectedColumns.columns,
      records: expectedRecords,
      ...expectedTally,
    };
    expect(planned.columns).toEqual(expected.columns);
    expect(batches.map((batch) => (JSON.parse(batch) as unknown[]).length)).toEqual([
      RECORD_BATCH_SIZE,
      RECORD_BATCH_SIZE,
      expected.records.length - 2 * RECORD_BATCH_SIZE,
    ]);
    expect(batches.join('|')).toBe(
      [0, 1, 2]
        .map(
          (n) =>
            `[${expected.records
              .slice(n * RECORD_BATCH_SIZE, (n + 1) * RECORD_BATCH_SIZE)
              .map(serializeRecord)
              .join(',')}]`,
        )
        .join('|'),
    );
    expect(planned.tally()).toEqual({
      totalRows: rows.length,
      recordCount: expected.records.length,
      duplicatesRemoved: expected.duplicatesRemoved,
      invalidRows: 1,
      rowErrors: expected.rowErrors,
    });
  });

  it('rejects with the domain error when the rows cannot be imported, and plans the next import', async () => {
    const refused = planner.plan({
      kind: 'GENERIC',
      dedupe: true,
      defaultCountryCode: 55,
      rowsJson: JSON.stringify([{ nome: 'sem telefone' }]),
    });
    await expect(refused).rejects.toBeInstanceOf(DomainError);
    await expect(refused).rejects.toMatchObject({
      code: 'IMPORT.NO_PHONE_COLUMN',
      kind: 'invalid',
    });

    const next = await planner.plan({
      kind: 'CONTACTS',
      dedupe: false,
      defaultCountryCode: 55,
      // Own __proto__ and constructor keys, as JSON.parse makes them: never columns.
      rowsJson: '[{"phoneNumber":"11987654321","__proto__":{"x":1},"constructor":"y"}]',
    });
    const batches: string[] = [];
    for await (const batch of next.batches) {
      batches.push(batch);
    }
    expect(next.columns.map((column) => column.columnName)).toEqual(['phone_number']);
    expect(JSON.parse(batches[0])).toEqual([
      { v: { phone_number: '5511987654321' }, s: '5511987654321', p: '5511987654321' },
    ]);
  });
});
