import {
  CountryCode,
  getCountries,
  getCountryCallingCode,
  parsePhoneNumberFromString,
} from 'libphonenumber-js/max';

const regionByCallingCode = new Map<string, CountryCode>();
for (const country of getCountries()) {
  const code = getCountryCallingCode(country);
  // The first country listed for a shared code is its main one (US for 1, BR for 55).
  if (!regionByCallingCode.has(code)) {
    regionByCallingCode.set(code, country);
  }
}
regionByCallingCode.set('1', 'US');
regionByCallingCode.set('7', 'RU');
regionByCallingCode.set('44', 'GB');

/**
 * Normalizes a phone number as docs/API-RULES.md §1 stores it: digits with country code and
 * no plus (5511987654321), or null when it is not a valid number. Accepts digits only, a
 * plus and country code, parentheses, hyphens, spaces and dots; numbers written without a
 * country code get `defaultCountryCode`.
 */
export function normalizePhone(input: unknown, defaultCountryCode: number): string | null {
  if (typeof input !== 'string' && typeof input !== 'number') {
    return null;
  }
  const raw = String(input).trim();
  if (raw.length === 0 || raw.length > 40 || !/^[+\d\s().\-/]+$/.test(raw)) {
    return null;
  }
  const digits = raw.replace(/\D/g, '');
  if (digits.length < 8 || digits.length > 15) {
    return null;
  }
  const fast = brazilianFastPath(raw, digits, defaultCountryCode);
  if (fast) {
    return fast;
  }
  if (raw.startsWith('+') || raw.startsWith('00')) {
    return valid(`+${digits.replace(/^00/, '')}`);
  }
  const region = regionByCallingCode.get(String(defaultCountryCode));
  const national = region ? parsePhoneNumberFromString(digits, region) : undefined;
  if (national?.isValid()) {
    return national.number.slice(1);
  }
  return valid(`+${digits}`);
}

function valid(international: string): string | null {
  const parsed = parsePhoneNumberFromString(international);
  return parsed?.isValid() ? parsed.number.slice(1) : null;
}

/**
 * Area codes and subscriber shapes that libphonenumber's Brazilian metadata accepts, for the
 * shapes campaigns mostly carry (11 to 13 digits). Parsing costs about 15 µs a number, which
 * is 1.5 s for a 100,000-contact campaign; this accepts only a subset of what the library
 * accepts (phone-number.spec.ts checks that), and everything else still goes through it.
 */
const BRAZIL_NATIONAL =
  /^(?:[14689][1-9]|2[12478]|3[1-578]|5[13-5]|7[13-579])(?:9\d{8}|[2-5]\d{7})$/;

function brazilianFastPath(raw: string, digits: string, defaultCountryCode: number): string | null {
  const international = raw.startsWith('+');
  if (
    digits.startsWith('55') &&
    (international || digits.length >= 12) &&
    BRAZIL_NATIONAL.test(digits.slice(2))
  ) {
    return digits;
  }
  if (!international && defaultCountryCode === 55 && BRAZIL_NATIONAL.test(digits)) {
    return `55${digits}`;
  }
  return null;
}
