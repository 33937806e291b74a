import { QueryFailedError } from 'typeorm';
import { faultCode, faultReason, isDataFault } from './data-fault';

function pgError(code: string, message: string): QueryFailedError {
  return new QueryFailedError('UPDATE …', [], Object.assign(new Error(message), { code }));
}

describe('isDataFault', () => {
  it("is the values' fault for data exceptions and integrity violations", () => {
    expect(isDataFault(pgError('22008', 'timestamp out of range'))).toBe(true);
    expect(isDataFault(pgError('23503', 'violates foreign key constraint'))).toBe(true);
    expect(isDataFault(new RangeError('Invalid time value'))).toBe(true);
    expect(isDataFault(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(
      true,
    );
  });

  it("is the database's state for lost connections, deadlocks, timeouts and the rest", () => {
    expect(isDataFault(pgError('40P01', 'deadlock detected'))).toBe(false);
    expect(isDataFault(pgError('57014', 'canceling statement due to statement timeout'))).toBe(
      false,
    );
    expect(isDataFault(pgError('08006', 'connection failure'))).toBe(false);
    expect(isDataFault(pgError('42P01', 'relation does not exist'))).toBe(false);
    expect(isDataFault(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(isDataFault('text')).toBe(false);
  });

  it('names the failure by its SQLSTATE or error name, with the message only in the reason', () => {
    expect(faultCode(pgError('22008', 'timestamp out of range: "x"'))).toBe('22008');
    expect(faultCode(new RangeError('Invalid time value'))).toBe('RangeError');
    expect(faultReason(pgError('22008', 'timestamp out of range'))).toBe(
      '22008: timestamp out of range',
    );
    expect(faultReason(new RangeError('Invalid time value'))).toBe(
      'RangeError: Invalid time value',
    );
  });
});
