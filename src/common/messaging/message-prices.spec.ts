import { costOf, estimatedCostOf, noBillableMessages, pricedCategoryOf } from './message-prices';

const PRICES = { marketing: 0.0625, utility: 0.0068, authentication: 0.0315, service: 0 };

describe('message prices', () => {
  it.each([
    ['marketing', 'marketing'],
    ['marketing_lite', 'marketing'],
    ['utility', 'utility'],
    ['authentication', 'authentication'],
    ['authentication_international', 'authentication'],
    ['service', 'service'],
    ['referral_conversion', null],
    ['constructor', null],
    ['', null],
  ])('prices Meta category %p as %p', (metaCategory, priced) => {
    expect(pricedCategoryOf(metaCategory)).toBe(priced);
  });

  it('costs billed messages at the table, to the hundredth of a cent', () => {
    const billable = { ...noBillableMessages(), marketing: 1_000, utility: 3, service: 7 };
    expect(costOf(billable, PRICES)).toEqual({
      currency: 'USD',
      billableMessages: billable,
      amount: 62.5204,
    });
  });

  it('counts without pricing when the company has no table', () => {
    const billable = { ...noBillableMessages(), marketing: 2 };
    expect(costOf(billable, null)).toEqual({
      currency: 'USD',
      billableMessages: billable,
      amount: null,
    });
  });

  it('estimates a campaign as its contacts at its category price', () => {
    expect(estimatedCostOf(50_000, 'marketing', PRICES)).toBe(3125);
    expect(estimatedCostOf(3, 'authentication', PRICES)).toBe(0.0945);
    expect(estimatedCostOf(50_000, 'marketing', null)).toBeNull();
  });
});
