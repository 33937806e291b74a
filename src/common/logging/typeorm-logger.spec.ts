import { withoutQuotedValues } from './typeorm-logger';

describe('withoutQuotedValues', () => {
  it('leaves out the values a data exception quotes', () => {
    expect(
      withoutQuotedValues('invalid input syntax for type integer: "5511987654321 SAIR"', '22P02'),
    ).toBe('invalid input syntax for type integer: "…"');
    expect(
      withoutQuotedValues('date/time field value out of range: "-010000-01-01"', '22008'),
    ).toBe('date/time field value out of range: "…"');
  });

  it('keeps the names other errors quote', () => {
    const message = 'duplicate key value violates unique constraint "blocked_contacts_pkey"';
    expect(withoutQuotedValues(message, '23505')).toBe(message);
    expect(withoutQuotedValues(message, undefined)).toBe(message);
  });
});
