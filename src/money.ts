import * as z from "zod/mini";
import { count } from "./count.ts";

/**
 * ISO 4217 currencies and their minor units: a catalog carries one code,
 * and every Money it answers is written with that currency's own digits. Most currencies have
 * two; these are the exceptions, from the ISO 4217 list (funds and metals without minor units
 * are left out: no store prices in them).
 *
 * Each list is written by first letter: a group is the letter and then the last two letters of
 * each code that starts with it (`JPY` is the J group's `PY`), which keeps the Worker's copy
 * small. The test (test/money.test.ts) holds the same lists code by code and compares.
 */
const ZERO = "BIF CLP DJF GNF ISK JPY KMFRW PYG RWF UGXYI VNDUV XAFOFPF";
const THREE = "BHD IQD JOD KWD LYD OMR TND";
const FOUR = "CLF UYW";
const TWO =
  "AEDFNLLMDNGOARSUDWGZN BAMBDDTGNMDNDOBOVRLSDTNWPYNZD CADDFHEHFHWNYOPOURCUPVEZK DKKOPZD " +
  "EGPRNTBUR FJDKP GBPELHSIPMDTQYD HKDNLTGUF IDRLSNRRR JMD KESGSHRPWYDZT LAKBPKRRDSL " +
  "MADDLGAKDMKNTOPRUURVRWKXNXVYRZN NADGNIOOKPRZD PABENGKHPKRLN QAR RONSDUB " +
  "SARBDCRDGEKGDHPLELLOSRDSPTNVCYPZL THBJSMTOPRYTDWDZS UAHSDSNYUZS VEDES WST XCDCG YER " +
  "ZARMWWGWL";

const MINOR_DIGITS = new Map<string, number>();
for (const [groups, digits] of [
  [TWO, 2],
  [ZERO, 0],
  [THREE, 3],
  [FOUR, 4],
] as const)
  for (const group of groups.split(" "))
    for (let at = 1; at < group.length; at += 2) MINOR_DIGITS.set(group[0] + group.slice(at, at + 2), digits);

/** An ISO 4217 code (`USD`, `JPY`, `KWD`); the seed catalog's is USD. */
export type Currency = string;
export const DEFAULT_CURRENCY: Currency = "USD";

/** Whether `code` is an ISO 4217 currency this service can price in. */
export function isCurrency(code: string): boolean {
  return MINOR_DIGITS.has(code);
}

/** The currency's minor-unit digits: JPY 0, USD 2, KWD 3. */
export function minorDigits(currency: Currency): number {
  const digits = MINOR_DIGITS.get(currency);
  if (digits === undefined) throw new RangeError(`Not an ISO 4217 currency: ${currency}`);
  return digits;
}

export const CurrencySchema = z
  .string()
  .check(
    z.regex(/^[A-Z]{3}$/, "an ISO 4217 currency code: three capital letters"),
    z.refine(isCurrency, "an ISO 4217 currency code in capitals, such as USD, EUR, JPY or KWD"),
  );

/** What clients see: the amount as a decimal string with the currency's minor digits. */
export const MoneySchema = z.object({
  amount: z.string().check(z.regex(/^\d+(\.\d{1,4})?$/)),
  currency: CurrencySchema,
});
export type Money = z.infer<typeof MoneySchema>;

/**
 * The highest unit price a catalog may hold, in minor units (9,999,999.99 USD, 999,999,999 JPY,
 * 999,999.999 KWD). A full cart (250 lines of 999 units) of it sums to about 2.5e14 minor units,
 * far inside 2^53, so every line total and subtotal stays an exact integer. Without a cap, prices
 * up to 999,999,999.99 passed and such a cart summed past 2^53: the cart could no longer be
 * formatted and answered 500.
 */
export const MAX_UNIT_MINOR = 999_999_999;

/**
 * A source price: digits with up to four decimals ("100", "100.0", "19.99", "2.500"). How many
 * decimals a price may have, and its highest value, depend on the catalog's currency: the
 * catalog schema checks them with sourceAmountIssue.
 */
export const SourceAmountSchema = z
  .string()
  .check(z.regex(/^\d{1,9}(\.\d{1,4})?$/, "a decimal string such as 25 or 19.99"));

/** Why `amount` is not a price in `currency` (too many decimals, above the cap), or null. */
export function sourceAmountIssue(amount: string, currency: Currency = DEFAULT_CURRENCY): string | null {
  const digits = minorDigits(currency);
  const decimals = /^\d+(?:\.(\d+))?$/.exec(amount)?.[1]?.length ?? 0;
  if (decimals > digits) {
    if (digits === 2) return "a decimal string with at most two decimals";
    return digits === 0
      ? `a whole number (${currency} has no minor units)`
      : `at most ${count(digits, "decimal")} (${currency} has ${count(digits, "minor-unit digit")})`;
  }
  if (toMinor(amount, currency) > MAX_UNIT_MINOR)
    return `at most ${fromMinor(MAX_UNIT_MINOR, currency).amount}, so a full cart's subtotal stays exact`;
  return null;
}

/** Parses a decimal string into integer minor units, never through floating point. */
export function toMinor(amount: string, currency: Currency = DEFAULT_CURRENCY): number {
  return toUnits(amount, minorDigits(currency), currency);
}

/** A decimal string as an integer count of 10^-digits units (`toUnits("1.5", 4)` is 15000); exact or a RangeError. */
export function toUnits(amount: string, digits: number, what = `${digits}-decimal`): number {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match || (match[2]?.length ?? 0) > digits) throw new RangeError(`Not a ${what} amount: ${amount}`);
  const whole = match[1] ?? "0";
  const fraction = (match[2] ?? "").padEnd(digits, "0");
  const minor = Number(whole) * 10 ** digits + Number(fraction || "0");
  // Beyond 2^53 the sum above is no longer exact: refuse rather than round.
  if (!Number.isSafeInteger(minor)) throw new RangeError(`Too large to count exactly in minor units: ${amount}`);
  return minor;
}

/** Formats integer minor units as Money: 10000 → {"amount": "100.00", "currency": "USD"}; 1500 JPY → "1500". */
export function fromMinor(minor: number, currency: Currency = DEFAULT_CURRENCY): Money {
  if (!Number.isSafeInteger(minor) || minor < 0) throw new RangeError(`Not a minor-unit amount: ${minor}`);
  const digits = minorDigits(currency);
  if (digits === 0) return { amount: String(minor), currency };
  const text = String(minor).padStart(digits + 1, "0");
  return { amount: `${text.slice(0, -digits)}.${text.slice(-digits)}`, currency };
}
