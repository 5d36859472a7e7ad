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

/** A source price: digits with at most the currency's minor digits ("100", "100.0", "19.99"). */
export const SourceAmountSchema = z.string().regex(/^\d{1,9}(\.\d{1,2})?$/, "a decimal string with at most two decimals");

/** Parses a decimal string into integer minor units, never through floating point. */
export function toMinor(amount: string, currency: Currency = "USD"): number {
  const digits = MINOR_DIGITS[currency];
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match || (match[2]?.length ?? 0) > digits) throw new RangeError(`Not a ${currency} amount: ${amount}`);
  const whole = match[1] ?? "0";
  const fraction = (match[2] ?? "").padEnd(digits, "0");
  return Number(whole) * 10 ** digits + Number(fraction || "0");
}

/** Formats integer minor units as Money: 10000 → {"amount": "100.00", "currency": "USD"}. */
export function fromMinor(minor: number, currency: Currency = "USD"): Money {
  if (!Number.isSafeInteger(minor) || minor < 0) throw new RangeError(`Not a minor-unit amount: ${minor}`);
  const digits = MINOR_DIGITS[currency];
  const text = String(minor).padStart(digits + 1, "0");
  return { amount: `${text.slice(0, -digits)}.${text.slice(-digits)}`, currency };
}
