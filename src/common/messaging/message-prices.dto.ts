import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsNumber, Max, Min, ValidateBy } from 'class-validator';
import type { MessagePrices, PricedCategory } from './message-prices';

/** The most a message may be priced at, in USD: far above any of Meta's rates, below a typo's. */
const MAX_PRICE = 10;
const DECIMALS = 6;

/**
 * At most DECIMALS decimal places. class-validator's own `maxDecimalPlaces` reads the number's
 * text and throws on exponent forms such as 1e-7 (a 500 instead of a 400).
 */
function hasAtMostDecimals(value: unknown): boolean {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return false;
  }
  const scaled = value * 10 ** DECIMALS;
  return Math.abs(scaled - Math.round(scaled)) < 1e-6;
}

function Price(category: PricedCategory, example: number): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      example,
      minimum: 0,
      maximum: MAX_PRICE,
      description: `USD por mensagem ${category} entregue`,
    }),
    IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'deve ser um número' }),
    ValidateBy(
      { name: 'maxDecimals', validator: { validate: hasAtMostDecimals } },
      { message: `deve ter no máximo ${DECIMALS} casas decimais` },
    ),
    Min(0, { message: 'deve ser no mínimo 0' }),
    Max(MAX_PRICE, { message: `deve ser no máximo ${MAX_PRICE}` }),
  );
}

/** The company's price table for the Cloud API (USD per message by pricing category). */
export class MessagePricesDto implements MessagePrices {
  @Price('marketing', 0.0625) marketing!: number;
  @Price('utility', 0.0068) utility!: number;
  @Price('authentication', 0.0068) authentication!: number;
  @Price('service', 0) service!: number;
}
