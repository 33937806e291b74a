import { monthDaysMatching } from './automation-selection';

describe('monthDaysMatching', () => {
  it.each([
    ['2027-02-28', ['02-28', '02-29']],
    ['2100-02-28', ['02-28', '02-29']],
    ['2028-02-28', ['02-28']],
    ['2000-02-28', ['02-28']],
    ['2028-02-29', ['02-29']],
    ['2027-03-01', ['03-01']],
    ['2026-11-22', ['11-22']],
  ])('on %s matches birthdays on %j', (today, monthDays) => {
    expect(monthDaysMatching(today)).toEqual(monthDays);
  });
});
