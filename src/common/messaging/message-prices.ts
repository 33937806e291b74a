/**
 * What the WhatsApp Cloud API charges per message, by the pricing category Meta reports in
 * its status webhooks (`pricing.category`, per-message pricing since July 2025). The prices are
 * the company's own table (USD per delivered message for Brazil, from Meta's rate card), not
 * ours: Meta changes them, and a company may have its partner's rates.
 */
export const PRICED_CATEGORIES = ['marketing', 'utility', 'authentication', 'service'] as const;
export type PricedCategory = (typeof PRICED_CATEGORIES)[number];

/** USD per message, by category. */
export type MessagePrices = Record<PricedCategory, number>;

/** Messages counted by the category they are priced at. */
export type BillableMessages = Record<PricedCategory, number>;

/**
 * The price a Meta category is charged at: its own, or the one Meta bills its variant at
 * (`marketing_lite` is a marketing message sent through the marketing API,
 * `authentication_international` an authentication message to another country, priced apart by
 * Meta, here at the authentication price). Null: not a category Meta charges for.
 */
const PRICED_AS: Readonly<Record<string, PricedCategory>> = {
  marketing: 'marketing',
  marketing_lite: 'marketing',
  utility: 'utility',
  authentication: 'authentication',
  authentication_international: 'authentication',
  service: 'service',
};

export function pricedCategoryOf(metaCategory: string): PricedCategory | null {
  return Object.hasOwn(PRICED_AS, metaCategory) ? PRICED_AS[metaCategory] : null;
}

export function noBillableMessages(): BillableMessages {
  return { marketing: 0, utility: 0, authentication: 0, service: 0 };
}

/** What a set of billed messages cost, or null without a price table. */
export interface MessageCost {
  currency: 'USD';
  billableMessages: BillableMessages;
  amount: number | null;
}

/** Money to the hundredth of a cent: a message costs a fraction of one. */
function roundedUsd(amount: number): number {
  return Math.round(amount * 10_000) / 10_000;
}

export function costOf(billable: BillableMessages, prices: MessagePrices | null): MessageCost {
  const amount = prices
    ? roundedUsd(
        PRICED_CATEGORIES.reduce((sum, category) => sum + billable[category] * prices[category], 0),
      )
    : null;
  return { currency: 'USD', billableMessages: { ...billable }, amount };
}

/** `messages` of one category at the table's price; null without a table. */
export function estimatedCostOf(
  messages: number,
  category: PricedCategory,
  prices: MessagePrices | null,
): number | null {
  return prices ? roundedUsd(messages * prices[category]) : null;
}
