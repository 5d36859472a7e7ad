import * as z from "zod";

/** Minor-unit digits per currency. USD is the only currency the catalog has today. */
const MINOR_DIGITS = { USD: 2 } as const;
export type Currency = keyof typeof MINOR_DIGITS;
export const CurrencySchema = z.enum(["USD"]);

/** What clients see: the amount as a decimal string with the currency's minor digits. */
export const MoneySchema = z
  .object({
    amount: z.string().regex(/^\d+\.\d{2}$/),
    currency: CurrencySchema,
  })
  .meta({ id: "Money", description: "An amount in a currency. `amount` is a decimal string with the currency's minor-unit digits." });
export type Money = z.infer<typeof MoneySchema>;

/**
 * The highest unit price a catalog may hold, in minor units (9,999,999.99). A full cart (250
 * lines of 999 units) of it sums to about 2.5e14 minor units, far inside 2^53, so every line
 * total and subtotal stays an exact integer. Without a cap, prices up to 999,999,999.99 passed
 * and such a cart summed past 2^53: the cart could no longer be formatted and answered 500.
 */
export const MAX_UNIT_MINOR = 999_999_999;

/** A source price: digits with at most the currency's minor digits ("100", "100.0", "19.99"). */
export const SourceAmountSchema = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,2})?$/, "a decimal string with at most two decimals")
  .refine((amount) => !/^\d+(\.\d{1,2})?$/.test(amount) || toMinor(amount) <= MAX_UNIT_MINOR, "at most 9999999.99, so a full cart's subtotal stays exact");

/** Parses a decimal string into integer minor units, never through floating point. */
export function toMinor(amount: string, currency: Currency = "USD"): number {
  const digits = MINOR_DIGITS[currency];
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match || (match[2]?.length ?? 0) > digits) throw new RangeError(`Not a ${currency} amount: ${amount}`);
  const whole = match[1] ?? "0";
  const fraction = (match[2] ?? "").padEnd(digits, "0");
  const minor = Number(whole) * 10 ** digits + Number(fraction || "0");
  // Beyond 2^53 the sum above is no longer exact: refuse rather than round.
  if (!Number.isSafeInteger(minor)) throw new RangeError(`Too large to count exactly in minor units: ${amount}`);
  return minor;
}

/** Formats integer minor units as Money: 10000 → {"amount": "100.00", "currency": "USD"}. */
export function fromMinor(minor: number, currency: Currency = "USD"): Money {
  if (!Number.isSafeInteger(minor) || minor < 0) throw new RangeError(`Not a minor-unit amount: ${minor}`);
  const digits = MINOR_DIGITS[currency];
  const text = String(minor).padStart(digits + 1, "0");
  return { amount: `${text.slice(0, -digits)}.${text.slice(-digits)}`, currency };
}
