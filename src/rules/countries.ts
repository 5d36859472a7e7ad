/**
 * ISO 3166-1 alpha-2: the 249 officially assigned codes, plus `XK` (Kosovo), the user-assigned
 * code Stripe and Shopify ship to. A shipping zone, a tax rate and a buyer name countries by
 * these; `ZZ` or `UK` (Britain is `GB`) is refused rather than silently matching nothing.
 *
 * Kept as a bitmap over the 676 two-capital codes (bit (first - A) * 26 + (second - A), base64):
 * 113 characters instead of a 750-character list in the Worker. The readable list is the test's
 * (test/rules/codes.test.ts), which checks every one of the 676 codes against it.
 */
const COUNTRY_BITS =
  "eFnf7u+93d4nP4QVgNQADgBcCbCf+xUAjQYYeA9AQAMAHSv0QYFP/fz/1yVLCAABQDyPUwEAAEAAUfH95zq7n5pBEARXhUAAAkAAAAEAEAAIBEAAAQ==";
let countryBits: string | undefined;

/** Whether `code` is an ISO 3166-1 alpha-2 country (capitals), or XK. */
export function isCountry(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code)) return false;
  countryBits ??= atob(COUNTRY_BITS);
  const bit = (code.charCodeAt(0) - 65) * 26 + code.charCodeAt(1) - 65;
  return ((countryBits.charCodeAt(bit >> 3) >> (bit & 7)) & 1) === 1;
}

/** How a country is written: two capitals, a code of ISO 3166-1 alpha-2. */
export const COUNTRY_MESSAGE = "an ISO 3166-1 alpha-2 country code in capitals, such as US, GB or DE";

/**
 * An ISO 3166-2 subdivision without its country prefix (`CA` for US-CA, `ON` for CA-ON, `75` for
 * FR-75): one to three capitals or digits. The list of subdivisions is not kept (about 5,000
 * codes), so a well-formed code that does not exist matches no rate, like any other region.
 */
export const REGION_PATTERN = /^[A-Z0-9]{1,3}$/;
export const REGION_MESSAGE = "an ISO 3166-2 subdivision code without the country, such as CA or ON";
